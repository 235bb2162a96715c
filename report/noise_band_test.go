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
