package sweep

import (
	"strings"
	"testing"
)

// A token budget with room for one request only is full as soon as one
// waits, as a fixed batch of one is: a budget of 2048 tokens where every
// request reserves at least 1 + max_new_tokens 1024 never waits, so its
// max_wait_ms of 5000 ms over a 2 s TTFT limit breaks nothing. Its ok
// row was noted as breaking the limit at light load.
func TestTokenBudgetOfOneRequestNeverWaits(t *testing.T) {
	res := runSpecOn(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["token_budget"]
"batch.max_token_budget" = [2048]
"batch.max_wait_ms" = [5000]
"device.max_model_len" = [2048]
[slo]
ttft_p99_ms = 2000
`, steadyTrace(1000), Options{Workers: 1})
	r := res.Rows[0]
	if r.Outcome != OutcomeOK || strings.Contains(r.Note, "max_wait_ms") {
		t.Errorf("outcome %s (skip %q) at scale %g, note %q: want ok with no note on the wait", r.Outcome, r.SkipReason, r.Scale, r.Note)
	}
}
