package sweep

import (
	"strings"
	"testing"
)

// A token budget's batches, full under load, take the waiting requests
// greedily while their prompt + max_new fits, so the trace's last batch is
// what that leaves, as a fixed batch's is what batch_size leaves: 103
// requests of 100 + 1024 tokens in a budget of 9000 fill 12 batches of 8
// and leave 7, of which the 4 arriving within the 3000 ms the wait
// exceeds the limit by break it at every load, more than the 1 a P99 over
// 103 allows. Ungated, the search climbed to search.max_scale and blamed
// light load.
func TestLastBatchGatesTokenBudget(t *testing.T) {
	res := runSpecOn(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["token_budget"]
"batch.max_token_budget" = [9000]
"batch.max_wait_ms" = [5000]
[slo]
ttft_p99_ms = 2000
[search]
min_scale = 0.25
max_scale = 64
`, steadyTrace(103), Options{Workers: 1})
	r := res.Rows[0]
	want := "the trace's last 7 requests (left when 103 admitted fill batch.max_token_budget 9000) never fill a batch"
	if r.Outcome != OutcomeInfeasible || r.Probes != 3 || !strings.Contains(r.Note, want) {
		t.Errorf("outcome %s after %d probes, note %q: want infeasible after the 3 probes down to min_scale, the note with %q", r.Outcome, r.Probes, r.Note, want)
	}
}
