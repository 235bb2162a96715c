package sim

import (
	"fmt"
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

// Once the request that cached a prompt's last block finishes, a request
// that computed the same block into one of its own holds that one only,
// as in vLLM, whose finished request frees its copy: B holds block 0, its
// own block 1 and its decode block, 3 in all, not 4.
func TestDuplicateLastBlockIsNotHeldTwiceOnceAlone(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		p := PolicyConfig{Name: Continuous, MaxNumSeqs: 4, MaxNumBatchedTokens: 100}
		cfg := Config{Policy: p, BlockSize: 4, TotalBlocks: 10, Devices: 1, NoSkip: noSkip,
			PrefixCaching: true, CheckInvariants: true, Step: testTimer}
		sum, _ := mustRun(t, cfg, []*traces.Request{
			req("A", 0, 8, 2, 1, 2), // finishes after step 1
			req("B", 0, 8, 3, 1, 2), // decodes once more alone
		})
		// Step 0: 3 blocks; step 1: 5 (a decode block each); A frees its
		// 2 blocks and its decode block: B's 3 remain for step 2.
		var used []int
		for _, pt := range sum.KV.Series {
			used = append(used, pt.Used)
		}
		want := []int{3, 5, 3, 0}
		if fmt.Sprint(used) != fmt.Sprint(want) {
			t.Errorf("KV blocks used over time %v, want %v", used, want)
		}
	})
}

// With three identical prompts, each request left holds one block of the
// last prompt block's hash, as each vLLM request keeps its own: after A,
// B and C hold block 0, a block 1 and a decode block each (5); after B, C
// holds 3.
func TestDuplicateLastBlockHandedOnTwice(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		p := PolicyConfig{Name: Continuous, MaxNumSeqs: 4, MaxNumBatchedTokens: 100}
		cfg := Config{Policy: p, BlockSize: 4, TotalBlocks: 10, Devices: 1, NoSkip: noSkip,
			PrefixCaching: true, CheckInvariants: true, Step: testTimer}
		sum, _ := mustRun(t, cfg, []*traces.Request{
			req("A", 0, 8, 2, 1, 2), req("B", 0, 8, 3, 1, 2), req("C", 0, 8, 4, 1, 2),
		})
		var used []int
		for _, pt := range sum.KV.Series {
			used = append(used, pt.Used)
		}
		if want := []int{4, 7, 5, 3, 0}; fmt.Sprint(used) != fmt.Sprint(want) {
			t.Errorf("KV blocks used over time %v, want %v", used, want)
		}
	})
}
