package report

import (
	"math/rand/v2"
	"testing"
)

// The mean's interval covers the true change about 95% of the time down
// to the fewest requests that get one: the plain percentile bootstrap of
// ten or twenty requests a run is too narrow (it covers about 90%).
func TestChangeIntervalSmallMeanCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{minTail, 20} {
		const trials = 400
		held := 0
		for range trials {
			lo, hi := changeInterval(expSample(rng, n, 1), expSample(rng, n, 1.2), meanOf, rng)
			if lo <= 0.2 && 0.2 <= hi {
				held++
			}
		}
		if f := float64(held) / trials; f < 0.93 || f > 0.985 {
			t.Errorf("mean of %d requests a run: the interval held +20%% in %.1f%% of %d trials, want about 95%%", n, 100*f, trials)
		}
	}
}
