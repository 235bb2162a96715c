package report

import (
	"math/rand/v2"
	"testing"
)

// Requests that come independently keep blocks of ⌈n^⅓⌉; bursts that last
// longer than that get blocks long enough to hold them.
func TestBlockLengthFollowsBursts(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n = 1200
	if got, want := sampleBlockLength(expSample(rng, n, 1)), blockLength(n); got != want {
		t.Errorf("independent requests: blocks of %d, want ⌈n^⅓⌉ = %d", got, want)
	}
	if got := sampleBlockLength(ar1Sample(rng, n, 0.97, 1)); got < 3*blockLength(n) {
		t.Errorf("bursts of some hundred requests (AR(1) 0.97): blocks of %d, want at least %d", got, 3*blockLength(n))
	}
	if got := sampleBlockLength(make([]float64, n)); got != blockLength(n) {
		t.Errorf("equal latencies: blocks of %d, want %d", got, blockLength(n))
	}
}

// Two runs of one engine whose bursts last some hundred requests (an
// AR(1) of coefficient 0.97) differ by chance far more than blocks of
// ⌈n^⅓⌉ (11) can tell (they held no change in about half the trials for
// the mean): blocks as long as the bursts hold it in three of four or
// more. (Short of 95%: a run holds only some twenty such bursts.)
func TestChangeIntervalLongBursts(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	const trials, n = 40, 1200
	for _, s := range []statistic{meanOf, quantile(0.5)} {
		held := 0
		for range trials {
			lo, hi := changeInterval(ar1Sample(rng, n, 0.97, 1), ar1Sample(rng, n, 0.97, 1), s, rng)
			if lo <= 0 && 0 <= hi {
				held++
			}
		}
		t.Logf("q=%v: held no change in %d of %d trials", s.q, held, trials)
		if f := float64(held) / trials; f < 0.75 {
			t.Errorf("q=%v: the interval held no change in %.0f%% of trials, want over 75%%", s.q, 100*f)
		}
	}
}

// Past 10⁵ requests the run of quiet lags that ends the correlation is
// ⌈log10 n⌉ long, as Politis and White's max(5, log10 n) is rounded in R's
// b.star: at n = 2·10⁵ five quiet lags before a correlation at lag 6 do
// not end it, so blocks hold that correlation.
func TestPolitisWhiteQuietRunAt2e5(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const n, lag = 200_000, 6
	e := make([]float64, n+lag)
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	x := make([]float64, n) // autocorrelation 0.5 at lag 6 alone
	for i := range x {
		x[i] = e[i+lag] + e[i]
	}
	// lags to 14 under the flat top: (2·(12·0.5)²/(4/3·2²))^⅓ n^⅓ ≈ 139
	if got := politisWhiteLength(x); got < 120 || got > 160 {
		t.Errorf("blocks of %d, want about 139: the correlation at lag %d ignored", got, lag)
	}
}
