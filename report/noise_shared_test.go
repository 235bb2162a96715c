package report

import (
	"math/rand/v2"
	"testing"
)

// The statistics of one series are read from the same resamples: a
// statistic asked for twice gets one interval, and each gets the interval
// it gets alone from the same seed (so its distribution is unchanged).
func TestChangeIntervalsShareResamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	a, b := ar1Sample(rng, 1500, 0.8, 1), ar1Sample(rng, 1500, 0.8, 1.1)
	ivs := intervalsOf(a, b, []statistic{quantile(0.5), quantile(0.5), meanOf}, false, rand.New(rand.NewPCG(1, 2)))
	if ivs[0] != ivs[1] {
		t.Errorf("the median asked for twice: intervals %v and %v, want one", ivs[0], ivs[1])
	}
	for i, s := range []statistic{quantile(0.5), meanOf} {
		lo, hi := changeInterval(a, b, s, rand.New(rand.NewPCG(1, 2)))
		if got := ivs[i+1]; got.lo != lo || got.hi != hi {
			t.Errorf("q=%v: interval %v … %v among others, %v … %v alone", s.q, got.lo, got.hi, lo, hi)
		}
	}
}
