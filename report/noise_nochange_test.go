package report

import "testing"

// With no resample at exactly no change, the interval holds no change
// exactly when its bounds, as printed, lie either side of it: the mid-p
// rule only weighs ties.
func TestHoldsNoChangeAgreesWithTheBounds(t *testing.T) {
	const n = bootstrapRounds
	for _, tail := range []float64{0.025, expandedTail(10)} {
		for _, below := range []int{40, 49, 50, 51, 60, n - 60, n - 51, n - 50, n - 49, n - 40} {
			sorted := make([]float64, n) // below falls, then rises
			for i := range sorted {
				sorted[i] = -1
				if i >= below {
					sorted[i] = 1
				}
			}
			lo, hi := Quantile(sorted, tail), Quantile(sorted, 1-tail)
			if got, want := holdsNoChange(sorted, tail), lo <= 0 && hi >= 0; got != want {
				t.Errorf("tail %v, %d of %d resamples below no change, the rest above: interval %v … %v, holds no change %v; want %v",
					tail, below, n, lo, hi, got, want)
			}
		}
	}
}
