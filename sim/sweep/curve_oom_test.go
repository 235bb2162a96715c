package sweep

import (
	"strings"
	"testing"
)

// A load-curve run that a static batch ends out of KV memory is left off
// the curve, as a failed run is, and the row's note names it: a curve that
// silently stopped short read as one the config served.
func TestCurveOOMNamedInNote(t *testing.T) {
	res := runSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [256]
"batch.max_wait_ms" = [50]
"device.gpu_memory_utilization" = [0.25]
[slo]
ttft_p99_ms = 1500000
`, Options{Workers: 1})
	r := res.Rows[0]
	for _, p := range r.Curve {
		if p.Scale >= 0.5 {
			t.Errorf("curve holds scale %g, where the run ran out of KV memory", p.Scale)
		}
	}
	if r.Outcome != OutcomeOK || !strings.Contains(r.Note, "load curve at scale 0.5, 1, 2 left off: out of KV memory (at scale 0.5: sim: out of KV memory: batch") {
		t.Errorf("outcome %s, note %q: want ok, naming the load curve's OOM", r.Outcome, r.Note)
	}
}
