package verify

import "testing"

// A slice whose requests hold no tokens still asks for a warm-up prompt
// of at least one token: w − 1 of nothing was −1.
func TestWarmupTokensAtLeastOne(t *testing.T) {
	for _, c := range []struct {
		k Knobs
		s sliceTokens
	}{
		{Knobs{}, sliceTokens{}},
		{Knobs{MaxNumSeqs: 8}, sliceTokens{requests: 3}},
		{Knobs{MaxNumSeqs: 8}, sliceTokens{requests: 1, longest: 1, total: 1}},
	} {
		if got := warmupTokens(c.k, c.s); got < 1 {
			t.Errorf("warmupTokens(max_num_seqs %d; longest %d, total %d) = %d: want ≥ 1", c.k.MaxNumSeqs, c.s.longest, c.s.total, got)
		}
	}
	if got := warmupTokens(Knobs{MaxNumSeqs: 2}, sliceTokens{requests: 4, longest: 100, total: 400}); got != 199 {
		t.Errorf("warmupTokens = %d: want 2 × 100 − 1 = 199", got)
	}
}
