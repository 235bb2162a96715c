package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The band a resampled quantile is selected among reaches as far as the
// sample's own blocks spread the count below it: about √(n·q(1−q)) for
// independent requests, the worst case √(n·l·q(1−q)) only when every
// block is all slow or all fast (here, requests in sorted order).
func TestQuantileBandFollowsSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	const n, q = 100_000, 0.5
	iid := expSample(rng, n, 1)
	bl := blocksOf(n, blockLength(n))
	k := int(math.Ceil(q * n))
	independent := bandSDs*math.Sqrt(n*q*(1-q)) + float64(bl.l)
	worst := bandSDs*math.Sqrt(n*float64(bl.l)*q*(1-q)) + float64(bl.l)
	if got := bandHalfWidth(ranks(iid), bl, k); float64(got) > 1.2*independent {
		t.Errorf("independent requests: a band of ±%d ranks, want about ±%.0f", got, independent)
	}
	sorted := slices.Sorted(slices.Values(iid))
	if got := bandHalfWidth(ranks(sorted), bl, k); float64(got) < 0.8*worst {
		t.Errorf("sorted requests: a band of ±%d ranks, want about ±%.0f", got, worst)
	}
}

// Summed chunk by chunk, every window's sum is the one read request by
// request, wrapping, to rounding.
func TestWindowSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for _, n := range []int{1, 7, 100, 1001} {
		x := expSample(rng, n, 1)
		for _, w := range []int{1, 2, 3, blockLength(n), n} {
			if w > n {
				continue
			}
			got := windowSums(x, w)
			for i := range x {
				want := 0.0
				for j := range w {
					want += x[(i+j)%n]
				}
				if math.Abs(got[i]-want) > 1e-12*want {
					t.Fatalf("%d requests, windows of %d: the sum from %d is %v, want %v", n, w, i, got[i], want)
				}
			}
		}
	}
}
