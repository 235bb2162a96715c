package sim

import (
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A late chunk of a long prompt attends over every earlier token of the
// prompt, reading their KV back: under the roofline prior a small last
// chunk after a long first one is memory-bound on weights plus that
// context, not on the weights and its own tokens alone.
func TestRooflineLateChunkReadsEarlierContext(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		r := realRoofline
		p := PolicyConfig{Name: Continuous, MaxNumSeqs: 1, MaxNumBatchedTokens: 16384, ChunkedPrefill: true}
		cfg := Config{Policy: p, BlockSize: 16, TotalBlocks: 2000, Devices: 1, NoSkip: noSkip, CheckInvariants: true, Step: r}
		_, w := mustRun(t, cfg, []*traces.Request{req("A", 0, 16400, 1)})
		first := r.StepSeconds(Batch{PrefillTokens: 16384, PrefillAttn: 16384 * 16384})
		// The 16-token chunk: compute (16e9·16 + 524288·16·16400)/692.3e12
		// = 0.57 ms; memory (16e9 + 131072·(16 + 16384))/2.8475e12 = 6.37 ms.
		second := (16e9+131072*(16+16384))/2.8475e12 + 2e-3
		got := float64(w.rows[0].FirstToken-w.rows[0].Arrival) / 1e9
		if want := first + second; math.Abs(got-want) > 1e-8 {
			t.Errorf("time to first token %.6f s, want %.6f s (the last chunk reads 16384 tokens of KV back)", got, want)
		}
	})
}
