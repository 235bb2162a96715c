package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// A simulated plan's goodput is over the window its throughput is over,
// the run's makespan. Two requests served within half a second and a
// third refused at 100 s (too long for max_model_len) showed 0.02 req/s
// beside a goodput of 4 req/s: more successes within the SLO a second
// than successes, as the goodput took the trace's window, which ends at
// the last token.
func TestSummaryGoodputOverItsThroughputWindow(t *testing.T) {
	dir := t.TempDir()
	var rows []*traces.Request
	for i, at := range []int64{0, 100e6, 100e9} {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), at, 100, 50
		r.ScheduledSend, r.ActualSend = at, at
		if i == 2 {
			r.Error = "rejected: prompt 10000 + output 10 tokens exceed max_model_len 8192"
		} else {
			r.FirstToken, r.LastToken, r.UsageOutput = at+10e6, at+400e6, 50
		}
		rows = append(rows, r)
	}
	if err := traces.WriteAll(filepath.Join(dir, "p.parquet"), traces.Meta{Source: "simulated"}, rows); err != nil {
		t.Fatal(err)
	}
	s := &sim.Summary{Policy: "continuous", Requests: 3, Completed: 2, Rejected: 1, OutputTokens: 100, InputTokens: 200,
		Makespan: 100, DeviceSeconds: 100, ReqPerSec: 0.02, OutputTokPerSec: 1,
		TTFT: sim.Dist{N: 2, P50: 0.01, P99: 0.01}, E2E: sim.Dist{N: 2, P99: 0.4}}
	data, err := json.Marshal([]*plan.Result{{Name: "p", Summary: s, Outcome: "ok"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := SummaryRuns(t.Context(), path, traces.SLO{TTFT: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m := runs[0].Metrics
	if m.MetSLO != 2 || m.Goodput != 0.02 {
		t.Errorf("%d met the SLO, goodput %v req/s beside %v req/s throughput: want 2, 0.02 (over the makespan)", m.MetSLO, m.Goodput, m.ReqPerSec)
	}
}
