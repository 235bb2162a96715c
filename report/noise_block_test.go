package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// ar1Sample is n latencies in arrival order whose logarithm is an AR(1)
// series of coefficient phi (stationary from the first request): a burst
// raises many consecutive latencies at once.
func ar1Sample(rng *rand.Rand, n int, phi, scale float64) []float64 {
	v := make([]float64, n)
	sd := 0.3
	x := sd * rng.NormFloat64()
	for i := range v {
		v[i] = scale * math.Exp(x)
		x = phi*x + sd*math.Sqrt(1-phi*phi)*rng.NormFloat64()
	}
	return v
}

// shuffled is a copy of x in random order: its requests' correlation in
// time undone, so its interval is the independent draws' one.
func shuffled(rng *rand.Rand, x []float64) []float64 {
	s := append([]float64(nil), x...)
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// Two runs of one engine whose latencies come in bursts (an AR(1) of
// coefficient 0.9) differ by chance far more than independent requests
// would: the interval over their requests in arrival order is clearly
// wider than over the same requests shuffled, and holds the true change
// (none) in most trials, where independent draws hold it in a third to
// half of them.
func TestChangeIntervalAutocorrelated(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const trials, n = 40, 1200
	for _, s := range []statistic{meanOf, quantile(0.5), quantile(0.99)} {
		held, heldShuffled := 0, 0
		width, widthShuffled := 0.0, 0.0
		for range trials {
			a, b := ar1Sample(rng, n, 0.9, 1), ar1Sample(rng, n, 0.9, 1)
			lo, hi := changeInterval(a, b, s, rng)
			if lo <= 0 && 0 <= hi {
				held++
			}
			width += hi - lo
			lo, hi = changeInterval(shuffled(rng, a), shuffled(rng, b), s, rng)
			if lo <= 0 && 0 <= hi {
				heldShuffled++
			}
			widthShuffled += hi - lo
		}
		t.Logf("q=%v: held no change in %d of %d trials (shuffled: %d), mean width %.3f (shuffled: %.3f)",
			s.q, held, trials, heldShuffled, width/trials, widthShuffled/trials)
		// A run holds few of these bursts (the correlation dies out
		// over some 20 requests), however long its blocks: short of 95%.
		if f := float64(held) / trials; f < 0.7 {
			t.Errorf("q=%v: the interval held no change in %.0f%% of trials, want over 70%%", s.q, 100*f)
		}
		if held <= heldShuffled {
			t.Errorf("q=%v: the interval held no change in %d trials, no more than over shuffled requests (%d)", s.q, held, heldShuffled)
		}
		if width < 1.5*widthShuffled {
			t.Errorf("q=%v: mean width %.3f, not clearly wider than over shuffled requests (%.3f)", s.q, width/trials, widthShuffled/trials)
		}
	}
}

// In a long run a resampled quantile is selected among the requests
// ranked near the sample's: it is distributed as one read off the whole
// resample, sorted.
func TestResampleQuantileBandMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	x := ar1Sample(rng, 20000, 0.9, 1)
	l := blockLength(len(x))
	for _, q := range []float64{0.5, 0.99} {
		const draws = 600
		draw := drawWith(quantile(q), x, l)
		fast, slow := make([]float64, draws), make([]float64, draws)
		for i := range draws {
			fast[i] = draw(rng)
			r := blockResample(rng, x, l)
			slices.Sort(r)
			slow[i] = Quantile(r, q)
		}
		slices.Sort(fast)
		slices.Sort(slow)
		for _, p := range []float64{0.05, 0.5, 0.95} {
			if f, b := Quantile(fast, p), Quantile(slow, p); math.Abs(f-b) > 0.02*b {
				t.Errorf("q=%v: the %v-quantile of resampled quantiles is %.4f as drawn, %.4f by resampling", q, p, f, b)
			}
		}
	}
}
