package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A prompt found whole in the prefix cache still computes its last block
// (its last token is never a hit), and vLLM computes it into a block of
// its own: two identical block-aligned prompts running together hold
// three prompt blocks, not two.
func TestLastPromptBlockIsComputedIntoItsOwnBlock(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		p := PolicyConfig{Name: Continuous, MaxNumSeqs: 4, MaxNumBatchedTokens: 100}
		cfg := Config{Policy: p, BlockSize: 4, TotalBlocks: 10, Devices: 1, NoSkip: noSkip,
			PrefixCaching: true, CheckInvariants: true, Step: testTimer}
		sum, _ := mustRun(t, cfg, []*traces.Request{
			req("A", 0, 8, 3, 1, 2), // blocks 0-1 computed and cached
			req("B", 0, 8, 3, 1, 2), // hits block 0, computes block 1 again
		})
		if sum.PrefixHits != 1 {
			t.Errorf("prefix hits %d, want 1 (B's block 0)", sum.PrefixHits)
		}
		// Step 0: A's 2 blocks, B's block 1; step 1: each decode opens a block.
		if sum.KV.MaxUsed != 5 {
			t.Errorf("KV blocks used at most %d, want 5 (A: 2 + 1, B: 1 shared + 1 + 1)", sum.KV.MaxUsed)
		}
	})
}
