package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A prompt preempted in the middle of its chunked prefill leaves only its
// full blocks in the prefix cache: the block its last chunk filled part of
// holds no complete KV, so the recompute must not find it (vLLM caches
// full blocks only).
func TestPreemptedChunkKeepsOnlyFullBlocks(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		var pf []float64
		p := PolicyConfig{Name: Continuous, MaxNumSeqs: 2, MaxNumBatchedTokens: 6, ChunkedPrefill: true}
		cfg := Config{Policy: p, BlockSize: 4, TotalBlocks: 4, Devices: 1, NoSkip: noSkip,
			PrefixCaching: true, CheckInvariants: true, Step: recTimer{Linear: testTimer, prefill: &pf}}
		sum, w := mustRun(t, cfg, []*traces.Request{
			req("A", 0, 4, 5),              // decodes until step 4 in its own 2 blocks
			req("B", 0, 16, 1, 1, 2, 3, 4), // chunks of 2 and 5 tokens: 7 computed, then preempted
		})
		if b := w.byID["B"]; b.Preemptions != 1 || !b.Succeeded() {
			t.Fatalf("B: %d preemptions, error %q; want one preemption, then served", b.Preemptions, b.Error)
		}
		// B's first admission looks up 3 blocks and finds none; its
		// recompute's lookups are not counted (as vLLM counts), and the
		// recomputed tokens below show what it found.
		if sum.PrefixLookups != 3 || sum.PrefixHits != 0 {
			t.Errorf("prefix cache: %d hits of %d lookups, want 0 of 3", sum.PrefixHits, sum.PrefixLookups)
		}
		var recomputed float64
		for _, x := range pf[1+3:] { // Validate's probe, then steps 0-2 before the preemption
			recomputed += x
		}
		// The recompute finds block 0 (tokens 0-3) but not block 1, of
		// which only tokens 4-6 were computed.
		if recomputed != 12 {
			t.Errorf("B recomputes %v prompt tokens after its preemption, want 12 (16 less block 0)", recomputed)
		}
	})
}
