package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestKVSeriesStartsWithWindow: buckets are counted from the window's
// opening, so once they widen the first still starts there, not before
// it. a arrives at 1 s and decodes 3000 steps of 11 ms, so the 1 ms
// buckets widen to 64 ms, which do not divide 1 s.
func TestKVSeriesStartsWithWindow(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		sum, _ := mustRun(t, testConfig(policy(t, Continuous), 1000, noSkip), []*traces.Request{req("a", 1000, 10, 3000)})
		if len(sum.KV.Series) == 0 || sum.KV.Series[0].T != sum.FirstArrival {
			t.Errorf("KV series starts %v; want at the window's opening, %v s", sum.KV.Series[:min(2, len(sum.KV.Series))], sum.FirstArrival)
		}
	})
}
