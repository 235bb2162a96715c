package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// Members of one static batch share the prompt blocks an earlier member
// computes in the same prefill step, as vLLM's attention layers do (each
// layer writes the step's KV before it attends). A and B, 33-token prompts
// with the same two full blocks (blocks of 16) and 1 output token, form a
// fixed batch at 0 ms: A computes 33 tokens, B finds 2 blocks and computes
// 1, so the step takes 10 + 34 = 44 ms, and they hold 2 shared blocks and
// a last block each: 4 of the device's 4, which 6 unshared would exceed.
func TestStaticBatchSharesPrefixComputedInItsStep(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 20}, 4, noSkip)
		cfg.PrefixCaching = true
		sum, w := mustRun(t, cfg, []*traces.Request{req("A", 0, 33, 1, 7, 8), req("B", 0, 33, 1, 7, 8)})
		for _, id := range []string{"A", "B"} {
			if r := w.byID[id]; r.StartTime != 0 || r.LastToken != 44*ms {
				t.Errorf("%s: start %d, last token %d ns; want 0, 44 ms (%q)", id, r.StartTime, r.LastToken, r.Error)
			}
		}
		if sum.KV.MaxUsed != 4 {
			t.Errorf("KV.MaxUsed = %d, want 4", sum.KV.MaxUsed)
		}
	})
}

// A static member's last prompt block is never a hit (its last token is
// always computed), and it computes that block into one of its own even
// while another member holds the same hash, as in continuous batching and
// vLLM. A and B, 32-token prompts with the same two blocks and 1 output
// token, form a fixed batch: A holds 2 blocks, B block 0 shared and its
// own block 1: 3 in all, which admission counted.
func TestStaticLastPromptBlockIsComputedIntoItsOwnBlock(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 20}, 3, noSkip)
		cfg.PrefixCaching = true
		sum, _ := mustRun(t, cfg, []*traces.Request{req("A", 0, 32, 1, 7, 8), req("B", 0, 32, 1, 7, 8)})
		if sum.PrefixHits != 1 {
			t.Errorf("prefix hits %d, want 1 (B's block 0)", sum.PrefixHits)
		}
		if sum.KV.MaxUsed != 3 {
			t.Errorf("KV.MaxUsed = %d, want 3 (A: 2, B: 1 shared + its own last block)", sum.KV.MaxUsed)
		}
	})
}
