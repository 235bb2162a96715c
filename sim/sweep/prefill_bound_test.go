package sweep

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim"
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

// The prefill bound prices the batch's own KV as resident: a calibrated
// llama.cpp profile reads its one cache every step (Cr) and attends over
// it per prompt token (Crp). Eight 100-token prompts hold 800 tokens, so
// the step takes 800·1 ms + 800·800·1 µs = 1440 ms, a wait of 1500 ms
// past a 2 s TTFT limit; priced with nothing resident it was 0 ms.
func TestPrefillBoundCountsTheBatchResident(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [8]
"batch.max_wait_ms" = [1500]
[slo]
ttft_p99_ms = 2000
`)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	ev := &evaluator{step: sim.Linear{Crp: 1e-6, Cr: 1e-3}}
	ev.reset(steadyTrace(100), s, &ex.Configs[0])
	if got, want := ev.batchPrefillMs(), 1440.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("prefill bound %g ms, want %g ms", got, want)
	}
	if name, limit := ev.batchWaitLimit(); name != "TTFT" || limit != 2000 {
		t.Errorf("batchWaitLimit = %q %g, want the TTFT limit of 2000 ms reached with the prefill", name, limit)
	}
}
