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

// When the cached copy of a prompt's last block is free (no request holds
// it), vLLM still computes that block into a new block taken from the
// head of the free queue, evicting the longest-free cached block. Three
// blocks: X caches block 9; A caches blocks 1 and 2 from the unused ones,
// freeing them behind X's; B hits block 1 and recomputes block 2 into the
// longest-free block, X's, so Y (prefix 9) then misses.
func TestLastPromptBlockRecomputedEvictsLongestFree(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		p := PolicyConfig{Name: Continuous, MaxNumSeqs: 4, MaxNumBatchedTokens: 100}
		cfg := Config{Policy: p, BlockSize: 4, TotalBlocks: 3, Devices: 1, NoSkip: noSkip,
			PrefixCaching: true, CheckInvariants: true, Step: testTimer}
		sum, w := mustRun(t, cfg, []*traces.Request{
			req("X", 0, 4, 1, 9),
			req("A", 100, 8, 1, 1, 2),
			req("B", 200, 8, 1, 1, 2),
			req("Y", 300, 8, 1, 9, 10),
		})
		if got := w.byID["B"].UsageCached; got != 4 {
			t.Errorf("B cached %d tokens, want 4 (block 1)", got)
		}
		if got := w.byID["Y"].UsageCached; got != 0 {
			t.Errorf("Y cached %d tokens, want 0: B's recompute of block 2 evicted block 9", got)
		}
		if sum.PrefixHits != 1 {
			t.Errorf("prefix hits %d, want 1 (B's block 1)", sum.PrefixHits)
		}
	})
}
