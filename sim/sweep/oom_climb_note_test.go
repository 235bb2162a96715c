package sweep

import (
	"context"
	"strings"
	"testing"
)

// A static batch out of KV memory at min_scale stops the search there,
// before any load above start_scale is tried: the note must not say that
// loads from search.max_scale down were probed, even where the batch's
// wait alone reaches the TTFT limit (a search no OOM stops does try them).
func TestInfeasibleOOMNoteClaimsNoHeavierLoads(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [256]
"batch.max_wait_ms" = [1000000]
"device.gpu_memory_utilization" = [0.25]
[slo]
ttft_p99_ms = 500000
[search]
min_scale = 0.25
`)
	if err != nil {
		t.Fatal(err)
	}
	// 1024 requests fill every batch of 256: the last one waits no longer
	res, err := Run(context.Background(), s, mustExpand(t, s), steadyTrace(1024), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Rows[0]
	if r.Outcome != OutcomeInfeasible || !strings.Contains(r.Note, "at scale 0.25: sim: out of KV memory") {
		t.Fatalf("outcome %s, note %q: want infeasible, naming the OOM at scale 0.25", r.Outcome, r.Note)
	}
	if strings.Contains(r.Note, "search.max_scale") {
		t.Errorf("note %q (%d probes): names search.max_scale, a load the search never tried", r.Note, r.Probes)
	}
}

// Where no OOM stops it, the search of a batch whose wait reaches the limit
// tries every doubling up to max_scale, and the infeasible note says so.
func TestInfeasibleClimbNoteNamesMaxScale(t *testing.T) {
	res := runSpecOn(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [8]
"batch.max_wait_ms" = [5]
[slo]
ttft_p99_ms = 1
[search]
min_scale = 0.25
max_scale = 16
`, steadyTrace(1024), Options{Workers: 1})
	r := res.Rows[0]
	want := "the SLO fails at every probed scale from search.max_scale 16 down to 0.25"
	if r.Outcome != OutcomeInfeasible || !strings.Contains(r.Note, want) {
		t.Errorf("outcome %s, note %q (%d probes): want infeasible, with %q", r.Outcome, r.Note, r.Probes, want)
	}
}

// A static batch that waits past the TTFT limit at light load and runs out
// of KV memory once heavier loads fill it is infeasible for both reasons:
// the note names the OOM of the loads tried above start_scale, where it
// once blamed only the wait and sent the planner to the latency limits.
func TestInfeasibleClimbNoteNamesTheOOMAbove(t *testing.T) {
	res := runSpecOn(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [256]
"batch.max_wait_ms" = [5000]
"device.gpu_memory_utilization" = [0.25]
[slo]
ttft_p99_ms = 2000
[search]
min_scale = 0.25
max_scale = 32
`, steadyTrace(1024), Options{Workers: 1})
	r := res.Rows[0]
	for _, want := range []string{
		"the SLO fails at every probed scale from search.max_scale 32 down to 0.25",
		"out of KV memory at scale 8, 16, 32 (at scale 8: sim: out of KV memory",
		"batch.max_wait_ms 5000 ≥ the TTFT limit of 2000 ms",
	} {
		if r.Outcome != OutcomeInfeasible || !strings.Contains(r.Note, want) {
			t.Errorf("outcome %s, note %q: want infeasible, with %q", r.Outcome, r.Note, want)
		}
	}
}
