package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// expSample is n sorted draws of an exponential distribution of mean m.
func expSample(rng *rand.Rand, n int, m float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = m * rng.ExpFloat64()
	}
	slices.Sort(v)
	return v
}

// The interval covers the true change about 95% of the time: for two
// samples of one distribution it holds 0; for a distribution 20% slower
// it holds +20% and, for the mean and the median, rarely 0.
func TestChangeIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const trials, n = 100, 1200
	for _, s := range []statistic{meanOf, quantile(0.5), quantile(0.99)} {
		same, shifted, zeroInShifted := 0, 0, 0
		for range trials {
			a := expSample(rng, n, 1)
			lo, hi := changeInterval(a, expSample(rng, n, 1), s, rng)
			if lo <= 0 && 0 <= hi {
				same++
			}
			lo, hi = changeInterval(a, expSample(rng, n, 1.2), s, rng)
			if lo <= 0.2 && 0.2 <= hi {
				shifted++
			}
			if lo <= 0 {
				zeroInShifted++
			}
		}
		t.Logf("q=%v: no change held in %d of %d, +20%% in %d, 0 in %d", s.q, same, trials, shifted, zeroInShifted)
		for what, got := range map[string]int{"no change": same, "+20%": shifted} {
			if f := float64(got) / trials; f < 0.88 || f > 0.995 {
				t.Errorf("q=%v: the interval held %s in %.0f%% of trials, want about 95%%", s.q, what, 100*f)
			}
		}
		if s.q != 0.99 && zeroInShifted > trials/5 {
			t.Errorf("q=%v: a 20%% slowdown of %d requests read as no change in %d of %d trials", s.q, n, zeroInShifted, trials)
		}
	}
}

// A resample's quantile drawn from the Beta distribution of the order
// statistic is distributed as one found by resampling and sorting.
func TestResampleQuantileMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	sorted := expSample(rng, 40, 1)
	for _, q := range []float64{0.5, 0.9} {
		s := quantile(q)
		const draws = 20000
		draw := s.resampler(sorted)
		fast, slow := make([]float64, draws), make([]float64, draws)
		buf := make([]float64, len(sorted))
		for i := range draws {
			fast[i] = draw(rng)
			for j := range buf {
				buf[j] = sorted[rng.IntN(len(sorted))]
			}
			slices.Sort(buf)
			slow[i] = Quantile(buf, q)
		}
		slices.Sort(fast)
		slices.Sort(slow)
		for _, p := range []float64{0.1, 0.25, 0.5, 0.75, 0.9} {
			if f, b := Quantile(fast, p), Quantile(slow, p); math.Abs(f-b) > 0.05*b {
				t.Errorf("q=%v: the %v-quantile of resampled quantiles is %.4f by Beta draws, %.4f by sorting", q, p, f, b)
			}
		}
	}
}

func TestChangeIntervalNeedsATail(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := expSample(rng, 999, 1), expSample(rng, 5000, 1)
	if lo, hi := changeInterval(a, b, quantile(0.99), rng); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("P99 of 999 requests: interval [%v, %v], want none", lo, hi)
	}
	if lo, _ := changeInterval(a, b, quantile(0.5), rng); math.IsNaN(lo) {
		t.Error("median of 999 requests: no interval")
	}
	if lo, _ := changeInterval(a[:9], b, meanOf, rng); !math.IsNaN(lo) {
		t.Error("mean of 9 requests: an interval")
	}
}

// Above clt requests a resample's mean is drawn from its normal limit: its
// spread is the sample's standard error, as resampling gives.
func TestResampleMeanNormalLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	sorted := expSample(rng, clt+1, 1)
	draw := meanOf.resampler(sorted)
	v := make([]float64, 20000)
	for i := range v {
		v[i] = draw(rng)
	}
	m, sd := stat.MeanStdDev(v, nil)
	wantM, wantSD := stat.MeanStdDev(sorted, nil)
	wantSD /= math.Sqrt(float64(len(sorted)))
	if math.Abs(m-wantM) > 0.05*wantSD || math.Abs(sd-wantSD) > 0.03*wantSD {
		t.Errorf("resampled means: mean %.5f sd %.5f, want %.5f and %.5f", m, sd, wantM, wantSD)
	}
}

func BenchmarkChangeInterval(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := expSample(rng, 100_000, 1), expSample(rng, 100_000, 1.1)
	for _, s := range []statistic{meanOf, quantile(0.5), quantile(0.99)} {
		b.Run(fmt.Sprintf("q=%v/n=100k", s.q), func(b *testing.B) {
			for b.Loop() {
				changeInterval(x, y, s, rng)
			}
		})
	}
	x, y = x[:clt], y[:clt]
	b.Run("q=0/n=5000", func(b *testing.B) {
		for b.Loop() {
			changeInterval(x, y, meanOf, rng)
		}
	})
}

// One slow outlier among thousands of requests makes a resample's mean a
// Poisson count of it, far from normal: the resampled means are drawn as
// resampling gives them, never below the fastest request.
func TestResampleMeanSkewedSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sorted := make([]float64, clt+1)
	for i := range sorted {
		sorted[i] = 0.02
	}
	sorted[clt] = 1000 // one request stalled for a quarter of an hour
	draw := meanOf.resampler(sorted)
	const draws = 2000
	fast, slow := make([]float64, draws), make([]float64, draws)
	for i := range draws {
		fast[i] = draw(rng)
		sum := 0.0
		for range sorted {
			sum += sorted[rng.IntN(len(sorted))]
		}
		slow[i] = sum / float64(len(sorted))
	}
	slices.Sort(fast)
	slices.Sort(slow)
	if fast[0] < sorted[0]*(1-1e-9) { // the sum of n equal values rounds
		t.Errorf("a resampled mean of %.4f, below the fastest request (%.2f)", fast[0], sorted[0])
	}
	for _, p := range []float64{0.025, 0.5, 0.975} {
		if f, b := Quantile(fast, p), Quantile(slow, p); math.Abs(f-b) > 0.05+0.1*b {
			t.Errorf("the %v-quantile of resampled means is %.4f as drawn, %.4f by resampling", p, f, b)
		}
	}
}
