package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// A paired sample holds NaN where its run did not serve the request: a
// resample's statistic is read from the values it served, as gathering
// the blocks' values, leaving out the NaNs and sorting them gives it,
// draw for draw.
func TestResamplerLeavesOutRequestsNotServed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := ar1Sample(rng, 3000, 0.8, 1)
	for i := range x {
		if rng.Float64() < 0.02 {
			x[i] = math.NaN()
		}
	}
	for _, l := range []int{1, 14, 40} {
		bl := blocksOf(len(x), l)
		starts := make([]int, bl.count)
		for _, s := range []statistic{meanOf, quantile(0.5), quantile(0.99)} {
			draw := s.resampler(x, l)
			for range 300 {
				bl.drawStarts(rng, starts)
				var r []float64
				for c, start := range starts {
					w := bl.l
					if c == bl.count-1 {
						w = bl.last
					}
					for j := range w {
						if v := x[(start+j)%len(x)]; !math.IsNaN(v) {
							r = append(r, v)
						}
					}
				}
				slices.Sort(r)
				want := mean(r)
				if s.q != 0 {
					want = Quantile(r, s.q)
				}
				if got := draw(starts); math.Abs(got-want) > 1e-9*math.Abs(want) {
					t.Fatalf("blocks of %d, q=%v: drew %v, want %v from the %d values served", l, s.q, got, want, len(r))
				}
			}
		}
	}
}
