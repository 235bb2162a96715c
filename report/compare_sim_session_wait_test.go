package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// simTraceRun is a simulated trace of a few requests, its metadata's
// extra keys set from extra (session_wait as simulate writes it).
func simTraceRun(t *testing.T, name string, extra map[string]string) *Run {
	t.Helper()
	rows := make([]*traces.Request, 20)
	for i := range rows {
		r := &traces.Request{}
		r.Reset()
		at := int64(i) * 1e8
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), at, 100, 50
		r.FirstToken, r.LastToken, r.HTTPStatus = at+2e7, at+5e8, 200
		rows[i] = r
	}
	meta := traces.Meta{Source: "simulated"}
	for k, v := range extra {
		meta.Set(k, v)
	}
	path := filepath.Join(t.TempDir(), name+".parquet")
	if err := traces.WriteAll(path, meta, rows); err != nil {
		t.Fatal(err)
	}
	run, err := TraceRun(t.Context(), path, traces.SLO{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// A simulated trace records the turnaround of the session turns it held
// (session_wait) and none when it held none, as a live replay records
// replay.session_wait: two such runs, simulated or live, of which only one
// held turns get the warning. A simulated run known only by its summary
// says nothing of session wait, nor does an imported trace.
func TestCompareWarnsOfSimulatedSessionWait(t *testing.T) {
	held := map[string]string{"session_wait": "2s"}
	live := func(wait string) *Run {
		return scheduleRunWith(t, "live", 20, 10, 1, traces.SLO{}, map[string]string{"replay.session_wait": wait})
	}
	summaryOnly := &Run{Name: "plan", Kind: "simulated"}
	imported := &Run{Name: "azure", Kind: "azure-2023-conv"}
	cases := []struct {
		name string
		a, b *Run
		want string
	}{
		{"simulated, held in B", simTraceRun(t, "a", nil), simTraceRun(t, "b", held), "session wait only in B"},
		{"simulated held, live not", simTraceRun(t, "a", held), live("false"), "session wait only in A"},
		{"live held, simulated not", live("true"), simTraceRun(t, "b", nil), "session wait only in A"},
		{"both simulated held", simTraceRun(t, "a", held), simTraceRun(t, "b", held), ""},
		{"summary only", live("true"), summaryOnly, ""},
		{"imported", imported, live("true"), ""},
	}
	for _, c := range cases {
		got := strings.Join(replayDifferences(c.a, c.b), "\n")
		if c.want == "" && strings.Contains(got, "session wait") || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: replayDifferences = %q, want %q", c.name, got, c.want)
		}
	}
}
