package traces

import (
	"math"
	"testing"
)

// The row rate is the session rate × the mean turns drawn, and draws are
// rounded and clamped to [max(1, min), max]: the mean of a clamped
// lognormal is not its Mean, which a large sample shows.
func TestSynthMeanTurnsMatchesDraws(t *testing.T) {
	for _, l := range []LengthSpec{
		{Kind: LengthLognormal, Mean: 2, CV: 1},
		{Kind: LengthLognormal, Mean: 1.2, CV: 3},
		{Kind: LengthLognormal, Mean: 3, CV: 2, Min: 1, Max: 5},
		{Kind: LengthLognormal, Mean: 10, CV: 0.5, Min: 4, Max: 8},
		{Kind: LengthLognormal, Mean: 50, CV: 0.2, Min: 2, Max: 0},
		{Kind: LengthLognormal, Mean: 4.5, CV: 0},
		{Kind: LengthLognormal, Mean: 3, CV: 1, Min: 4, Max: 4},
		{Kind: LengthLognormal, Mean: 3000, CV: 0.8, Min: 0, Max: 6000},
	} {
		c := DefaultSynthConfig()
		c.Turns = l
		d := newLengthDist(l, 0)
		rng := newStream(7, "test.turns")
		const n = 400_000
		var sum float64
		for range n {
			sum += float64(d.draw(rng))
		}
		sample, got := sum/n, c.meanTurns()
		if math.Abs(got-sample) > 0.01*sample {
			t.Errorf("%s: meanTurns = %.4f, want the draws' mean %.4f (within 1%%)", l.spec(), got, sample)
		}
	}
}
