package sweep

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// steadyTrace is n requests one second apart, of 100 prompt and 10 output
// tokens: a load any batch serves quickly, so that the wait to fill a
// batch decides TTFT.
func steadyTrace(n int) *Trace {
	tr := &Trace{Name: "steady"}
	for i := range n {
		q := traces.Request{ID: fmt.Sprint(i), Arrival: int64(i) * 1e9, PromptTokens: 100, OutputTokens: 10}
		q.ClearObserved()
		tr.Reqs = append(tr.Reqs, q)
	}
	tr.nAll, tr.Span, tr.Rate = int64(n), float64(n-1), 1
	return tr
}

// A fixed batch that may wait 5 s to fill breaks a 2 s TTFT limit at the
// trace's rate and every lighter one, and meets it from 4× on, where
// batches fill in 2 s. The search halves from the start scale only, so the
// row is infeasible; its note says why the loads above were not tried,
// where it read as though the SLO failed at every load.
func TestInfeasibleNoteNamesTheBatchWait(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [8]
"batch.max_wait_ms" = [5000]
[slo]
ttft_p99_ms = 2000
[search]
min_scale = 0.25
`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), s, mustExpand(t, s), steadyTrace(1000), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Rows[0]
	want := "batch.max_wait_ms 5000 ≥ the TTFT limit of 2000 ms: a batch waiting to fill breaks it at light load, and loads above the start scale 1 were not tried"
	if r.Outcome != OutcomeInfeasible || !strings.Contains(r.Note, want) {
		t.Errorf("outcome %s, note %q: want infeasible, with %q", r.Outcome, r.Note, want)
	}
}
