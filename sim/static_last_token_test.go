package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A static reservation holds what the engine stores: prompt + max_new − 1
// tokens, as the last token sampled is never fed back into the KV cache
// (the count rejectReason and continuous batching use). With blocks of 16,
// a 16-token prompt and 17 output tokens store 32 tokens: 2 blocks, not
// the 3 that 33 tokens would take. Counting the last token rejected such a
// request on a 2-block device, which every engine serves, and ran a batch
// of two of them out of 4 blocks.
func TestStaticReservationLeavesOutTheLastToken(t *testing.T) {
	for _, p := range []PolicyConfig{
		{Name: Serial},
		{Name: Fixed, BatchSize: 2, MaxWaitMs: 20},
		{Name: TokenBudget, TokenBudget: 66, MaxWaitMs: 20},
	} {
		t.Run(p.Name, func(t *testing.T) {
			bothModes(t, func(t *testing.T, noSkip bool) {
				sum, w := mustRun(t, testConfig(p, 2, noSkip), []*traces.Request{req("a", 0, 16, 17)})
				if sum.Rejected != 0 || sum.Completed != 1 {
					t.Fatalf("2 blocks: %d completed, %d rejected (%q); want it served", sum.Completed, sum.Rejected, w.byID["a"].Error)
				}
				if sum.KV.MaxUsed != 2 {
					t.Errorf("2 blocks: KV.MaxUsed = %d, want 2", sum.KV.MaxUsed)
				}
				if p.Name == Serial {
					return
				}
				sum, w = mustRun(t, testConfig(p, 4, noSkip), []*traces.Request{req("a", 0, 16, 17), req("b", 0, 16, 17)})
				if sum.Completed != 2 || w.byID["a"].StartTime != w.byID["b"].StartTime {
					t.Errorf("4 blocks: %d completed, a starts at %d ns, b at %d ns; want both served in one batch",
						sum.Completed, w.byID["a"].StartTime, w.byID["b"].StartTime)
				}
			})
		})
	}
}
