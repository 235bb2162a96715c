package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A static policy reserves prompt + max_new tokens, but no request runs
// past max_model_len (one that asks to is rejected), so nor does its
// reservation. Reserving max_new beyond it rejected requests every engine
// serves, and ran batches out of memory that fit.
func TestStaticReservationStopsAtMaxModelLen(t *testing.T) {
	for _, p := range []PolicyConfig{
		{Name: Serial},
		{Name: Fixed, BatchSize: 2, MaxWaitMs: 20},
		// Room for two reservations of max_model_len, not of max_new.
		{Name: TokenBudget, TokenBudget: 128, MaxWaitMs: 20},
	} {
		t.Run(p.Name, func(t *testing.T) {
			bothModes(t, func(t *testing.T, noSkip bool) {
				// 8 blocks of 16: two sequences of max_model_len 64.
				cfg := testConfig(p, 8, noSkip)
				cfg.MaxModelLen, cfg.MaxNewTokens = 64, 1000
				sum, w := mustRun(t, cfg, []*traces.Request{req("a", 0, 40, 5), req("b", 0, 10, 54)})
				if sum.Rejected != 0 || sum.Completed != 2 {
					t.Fatalf("%d completed, %d rejected (%q, %q); want both served", sum.Completed, sum.Rejected, w.byID["a"].Error, w.byID["b"].Error)
				}
				if p.Name != Serial && w.byID["a"].StartTime != w.byID["b"].StartTime {
					t.Errorf("a started at %d ns, b at %d ns: want one batch", w.byID["a"].StartTime, w.byID["b"].StartTime)
				}
			})
		})
	}
}
