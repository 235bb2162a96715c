package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A request that reached the scheduler during a pure-decode stretch of a
// static batch is waiting when the stretch ends, as it is when the steps
// run one at a time: one arriving at an idle engine then joins it in the
// next batch, not one admission delay later.
func TestAdmitDelayStretchHandsOverBeforeNextArrival(t *testing.T) {
	p := policy(t, TokenBudget)
	p.TokenBudget, p.MaxWaitMs = 200, 0
	step := Linear{C0: 10e-3, Cp: 1e-3, Cd: 1e-3, Admit: Admission{Delay: 3e-3}}
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := Config{Policy: p, BlockSize: 4, TotalBlocks: 50, Step: step, Devices: 1, NoSkip: noSkip, CheckInvariants: true}
		// a: prefill 0–18 ms, 10 decode steps to 128 ms. b arrives during
		// a's first decode step and reaches the scheduler at 21 ms; c
		// reaches the idle engine as a ends. Both prefill at 128 ms:
		// 10 + 42 + 16 ms.
		reqs := []*traces.Request{req("a", 0, 8, 11), req("b", 18, 42, 1), req("c", 128, 16, 2)}
		_, w := mustRun(t, cfg, reqs)
		for _, id := range []string{"b", "c"} {
			if r := w.byID[id]; r.StartTime != 128e6 || r.FirstToken != 196e6 {
				t.Errorf("%s: start %d first token %d ns, want 128 and 196 ms", id, r.StartTime, r.FirstToken)
			}
		}
	})
}
