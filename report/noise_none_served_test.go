package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A paired run that served a few requests, all in one burst, has
// resamples whose blocks miss every one of them: such a resample has no
// statistic, and its change none. The interval is read from the others,
// so its bounds stay numbers, the lower at or below the upper.
func TestChangeIntervalSkipsResamplesServingNone(t *testing.T) {
	const n = 1000
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i], b[i] = math.NaN(), 1
		if i < minTail {
			a[i] = float64(i + 1)
		}
	}
	// blocks of ten: a resample misses the ten served with chance about
	// (1 − 19/1000)^100, some 15% of its rounds, far above the 2.5% tail
	if l := max(sampleBlockLength(served(a)), sampleBlockLength(b)); l != 10 {
		t.Fatalf("block length %d, want 10 (the case this test forces)", l)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	iv := intervalsOf(a, b, []statistic{meanOf}, true, rng)[0]
	if !known(iv.lo) || !known(iv.hi) || iv.lo > iv.hi {
		t.Errorf("interval [%v, %v]: want finite bounds, lo ≤ hi, read from the resamples that served a request", iv.lo, iv.hi)
	}
}
