package main

import (
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/sweep"
)

// Candidates ranked with sessions' turns held, verified without holding
// them, or the reverse, or at another turnaround, are measured under
// another workload than the one that ranked them: verify warns.
func TestVerifySweepSessionWaitMismatch(t *testing.T) {
	held := &sweep.CandidateFile{Settings: "tool_version=dev session_wait=1ms knee_p99_pct=50"}
	plain := &sweep.CandidateFile{Settings: "tool_version=dev knee_p99_pct=50"}
	ms := func(n int) *sim.SessionWait { return &sim.SessionWait{IssueGap: time.Duration(n) * time.Millisecond} }
	for _, tc := range []struct {
		name string
		cf   *sweep.CandidateFile
		wait *sim.SessionWait
		want string // "" = no warning
	}{
		{"held, verified held", held, ms(1), ""},
		{"plain, verified plain", plain, nil, ""},
		{"held, verified plain", held, nil, "swept with sessions' turns held (session_wait=1ms); verify without --session-wait"},
		{"plain, verified held", plain, ms(1), "swept with every turn at its arrival; verify --session-wait"},
		{"other turnaround", held, ms(5), "turnaround 1ms; --session-wait-gap 5ms"},
	} {
		got := sweepSessionWaitWarning(tc.cf, "c.json", tc.wait)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) || (got != "" && !strings.Contains(got, "c.json")) {
			t.Errorf("%s: warning %q, want one containing %q and the file", tc.name, got, tc.want)
		}
	}
}
