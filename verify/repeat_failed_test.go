package verify

import (
	"strings"
	"testing"
)

// With --repeat the failures are summed over the runs while the measured
// counts are one run's: the table says they are the runs' together, else
// "11/12 completed" stands beside "timeout×3".
func TestTableSaysFailuresAreOverTheRuns(t *testing.T) {
	run := Repeat{Status: StatusOK, Measured: Metrics{Requests: 12, Completed: 11}, FailedByKind: map[string]int{"timeout": 1}}
	c := CandidateResult{Rank: 1, Label: "a", Repeat: run, Repeats: []Repeat{run, run, run}}
	c.Status, c.FailedByKind = StatusOK, map[string]int{"timeout": 3}
	res := &Result{Candidates: []CandidateResult{c}}
	var b strings.Builder
	res.WriteTable(&b)
	if !strings.Contains(b.String(), "failed over 3 runs: timeout×3") {
		t.Errorf("table:\n%s\nwant the failures said to be over 3 runs", b.String())
	}
	c.Repeats, c.FailedByKind = nil, map[string]int{"timeout": 1}
	res.Candidates[0] = c
	b.Reset()
	res.WriteTable(&b)
	if !strings.Contains(b.String(), "failed: timeout×1") {
		t.Errorf("table:\n%s\nwant one run's failures as they were", b.String())
	}
}
