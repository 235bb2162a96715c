package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// A plan of a summary.json whose trace lies beside it held session turns
// when that trace says so (session_wait): the run read from the summary
// says it too, as the trace read alone would.
func TestSummaryRunTakesSessionWaitFromItsTrace(t *testing.T) {
	dir := t.TempDir()
	rows := make([]*traces.Request, 3)
	for i := range rows {
		r := &traces.Request{}
		r.Reset()
		at := int64(i) * 1e8
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), at, 100, 50
		r.FirstToken, r.LastToken, r.UsageOutput = at+10e6, at+400e6, 50
		rows[i] = r
	}
	meta := traces.Meta{Source: "simulated"}
	meta.Set("session_wait", "2s")
	if err := traces.WriteAll(filepath.Join(dir, "p.parquet"), meta, rows); err != nil {
		t.Fatal(err)
	}
	s := &sim.Summary{Policy: "continuous", Requests: 3, Completed: 3, OutputTokens: 150, InputTokens: 300,
		Makespan: 1, DeviceSeconds: 1, ReqPerSec: 3, OutputTokPerSec: 150,
		TTFT: sim.Dist{N: 3, P50: 0.01, P99: 0.01}, E2E: sim.Dist{N: 3, P99: 0.4}}
	data, err := json.Marshal([]*plan.Result{{Name: "p", Summary: s, Outcome: "ok"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := SummaryRuns(t.Context(), path, traces.SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if !runs[0].SessionWait {
		t.Errorf("%s: SessionWait false, want true: its trace held session turns (session_wait=2s)", runs[0].Name)
	}
}
