package sweep

import (
	"strings"
	"testing"
)

// A full batch's prefill is bounded by the batch_size longest prompts the
// config admits, not batch_size times the longest: over 1000 prompts of
// 100 tokens and one of 7000, a batch of 8 prefills at most 7700 tokens,
// about 0.2 s, so a wait of 1500 ms cannot reach a 2 s TTFT limit. Eight
// prompts of 7000 tokens took the wait past it, and a config that a 1 ms
// TPOT limit fails at every load climbed above start_scale to
// search.max_scale for nothing.
func TestPrefillBoundTakesTheLongestPromptsOnce(t *testing.T) {
	tr := steadyTrace(1000)
	tr.Reqs[500].PromptTokens = 7000
	res := runSpecOn(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [8]
"batch.max_wait_ms" = [1500]
[slo]
ttft_p99_ms = 2000
tpot_p99_ms = 1
[search]
min_scale = 0.25
max_scale = 64
`, tr, Options{Workers: 1})
	r := res.Rows[0]
	if r.Outcome != OutcomeInfeasible || r.Probes != 3 || strings.Contains(r.Note, "max_scale") {
		t.Errorf("outcome %s after %d probes, note %q: want infeasible after the 3 probes down to min_scale, without a climb to max_scale", r.Outcome, r.Probes, r.Note)
	}
}
