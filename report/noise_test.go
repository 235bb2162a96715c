package report

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// expSample is n independent draws of an exponential distribution of
// mean m, in the order drawn (as requests arrive).
func expSample(rng *rand.Rand, n int, m float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = m * rng.ExpFloat64()
	}
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

// changeInterval is the interval of one statistic's change.
func changeInterval(a, b []float64, s statistic, rng *rand.Rand) (lo, hi float64) {
	iv := intervalsOf(a, b, []statistic{s}, false, rng)[0]
	return iv.lo, iv.hi
}

// intervalsOf is changeIntervals under a context that is never done, so
// never with an error.
func intervalsOf(a, b []float64, stats []statistic, paired bool, rng *rand.Rand) []interval {
	ivs, _ := changeIntervals(context.Background(), a, b, stats, paired, rng)
	return ivs
}

// drawWith returns a function that draws s of one resample of x with
// blocks of l, its blocks' starts drawn from the rng it is given.
func drawWith(s statistic, x []float64, l int) func(*rand.Rand) float64 {
	draw, starts := s.resampler(x, l), make([]int, blocksOf(len(x), l).count)
	return func(rng *rand.Rand) float64 {
		blocksOf(len(x), l).drawStarts(rng, starts)
		return draw(starts)
	}
}

// blockResample is a circular block bootstrap resample of x with blocks
// of l requests, drawn one block at a time.
func blockResample(rng *rand.Rand, x []float64, l int) []float64 {
	n := len(x)
	r := make([]float64, 0, n+l)
	for len(r) < n {
		start := rng.IntN(n)
		for j := range l {
			r = append(r, x[(start+j)%n])
		}
	}
	return r[:n]
}

// A resample's statistic as the resampler draws it (block sums for the
// mean, a selection for a quantile) is distributed as one found by
// resampling block by block, sorting and reading it off.
func TestResamplerMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := ar1Sample(rng, 50, 0.9, 1)
	for _, l := range []int{1, 4, 7} {
		for _, s := range []statistic{meanOf, quantile(0.5), quantile(0.9)} {
			const draws = 20000
			draw := drawWith(s, x, l)
			fast, slow := make([]float64, draws), make([]float64, draws)
			for i := range draws {
				fast[i] = draw(rng)
				r := blockResample(rng, x, l)
				slices.Sort(r)
				slow[i] = mean(r)
				if s.q != 0 {
					slow[i] = Quantile(r, s.q)
				}
			}
			slices.Sort(fast)
			slices.Sort(slow)
			for _, p := range []float64{0.025, 0.1, 0.5, 0.9, 0.975} {
				if f, b := Quantile(fast, p), Quantile(slow, p); math.Abs(f-b) > 0.02*b {
					t.Errorf("blocks of %d, q=%v: the %v-quantile of resampled figures is %.4f as drawn, %.4f by resampling", l, s.q, p, f, b)
				}
			}
		}
	}
}

// kthSmallest reads what sorting gives, ties and all.
func TestKthSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, v := range [][]float64{{5}, {2, 2, 2, 2}, {3, 1, 2, 1, 3, 1}, expSample(rng, 101, 1)} {
		sorted := slices.Sorted(slices.Values(v))
		for k := 1; k <= len(v); k++ {
			if got := kthSmallest(slices.Clone(v), k); got != sorted[k-1] {
				t.Errorf("%v: the %d-th smallest read as %v, want %v", v, k, got, sorted[k-1])
			}
		}
	}
}

func TestBlockLength(t *testing.T) {
	for n, want := range map[int]int{10: 3, 27: 3, 28: 4, 999: 10, 1000: 10, 1001: 11, 1_000_000: 100} {
		if got := blockLength(n); got != want {
			t.Errorf("blockLength(%d) = %d, want %d", n, got, want)
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
}

// One slow outlier among thousands of requests makes a resample's mean a
// count of the blocks that hold it, far from normal: the resampled means
// are drawn as resampling gives them, never below the fastest request.
func TestResampleMeanSkewedSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sorted := make([]float64, 5001)
	for i := range sorted {
		sorted[i] = 0.02
	}
	sorted[2500] = 1000 // one request stalled for a quarter of an hour
	l := blockLength(len(sorted))
	draw := drawWith(meanOf, sorted, l)
	const draws = 2000
	fast, slow := make([]float64, draws), make([]float64, draws)
	for i := range draws {
		fast[i] = draw(rng)
		slow[i] = mean(blockResample(rng, sorted, l))
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
