package sweep

import (
	"strings"
	"testing"
)

// A fixed batch of one is full as soon as a request waits, so its
// max_wait_ms never delays a batch: the row's note must not blame the
// wait for light-load failures, however long the wait is set.
func TestBatchOfOneNeverWaitsToFill(t *testing.T) {
	res := runSpecOn(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [1]
"batch.max_wait_ms" = [5000]
[slo]
ttft_p99_ms = 2000
[search]
min_scale = 0.25
max_scale = 4
curve_octaves_below = 0
`, steadyTrace(200), Options{Workers: 1})
	r := res.Rows[0]
	if r.Outcome != OutcomeOK || strings.Contains(r.Note, "max_wait_ms") {
		t.Errorf("outcome %s at scale %g, note %q: want ok, with no note on a wait a batch of one never has", r.Outcome, r.Scale, r.Note)
	}
}
