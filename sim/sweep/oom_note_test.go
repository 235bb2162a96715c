package sweep

import (
	"strings"
	"testing"
)

// A config whose static batches run out of KV memory at every probed scale
// is infeasible for that reason, as a fixed rate_scale's row says; a note
// that only said the SLO fails pointed at the latency limits.
func TestInfeasibleNoteNamesTheOOM(t *testing.T) {
	res := runSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [256]
"batch.max_wait_ms" = [100000]
"device.gpu_memory_utilization" = [0.25]
[slo]
ttft_p99_ms = 1500000
[search]
min_scale = 0.25
`, Options{Workers: 1})
	r := res.Rows[0]
	if r.Outcome != OutcomeInfeasible || !strings.Contains(r.Note, "out of KV memory") || !strings.Contains(r.Note, "scale 0.25") {
		t.Errorf("outcome %s, note %q: want infeasible, naming the OOM at scale 0.25", r.Outcome, r.Note)
	}
}

// The note names the OOM too when the rows the OOM ended the run with
// (finished on other replicas, released behind a not-run one) are what
// broke the SLO: the probe stopped on the SLO, after the OOM.
func TestInfeasibleNoteNamesTheOOMTheSLOBrokeAfter(t *testing.T) {
	res := runSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [32]
"batch.max_wait_ms" = [1000]
"device.gpu_memory_utilization" = [0.24]
"cluster.replicas" = [3]
[cluster]
router = "round_robin"
[slo]
ttft_p99_ms = 3300
[search]
min_scale = 1
`, Options{Workers: 1})
	r := res.Rows[0]
	if r.Outcome != OutcomeInfeasible || !strings.Contains(r.Note, "out of KV memory on replica") || !strings.Contains(r.Note, "scale 1") {
		t.Errorf("outcome %s, note %q: want infeasible, naming the OOM at scale 1", r.Outcome, r.Note)
	}
}
