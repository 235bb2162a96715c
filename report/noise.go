package report

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// bootstrapRounds is how many resamples an interval is read from; at 2,000
// its bounds move by about a point between seeds (up to three for the P99
// of 1,200 requests), little beside its width (there 20–30 points).
const bootstrapRounds = 2000

// clt is the sample size above which a resample's mean is drawn from its
// normal limit, which it then follows closely, instead of by n draws,
// unless the sample is too skewed for its size (normalLimitHolds).
const clt = 5000

// maxSkewPerRootN bounds a sample's skewness over √n for the normal limit:
// the limit's error in the tails grows as that ratio (the first Edgeworth
// term); at 0.1 it moves the 2.5% tail by about a quarter of a point, and
// an exponential sample (skewness 2) passes at any size above clt.
const maxSkewPerRootN = 0.1

// statistic is a latency figure of one run's per-request sample: the
// nearest-rank quantile q (as Quantile), or the mean when q is 0.
type statistic struct{ q float64 }

// meanOf is the mean; quantile(q) the nearest-rank quantile q in (0, 1).
var meanOf = statistic{}

func quantile(q float64) statistic { return statistic{q} }

// minTail is how many requests a sample needs beyond a quantile (and in
// all, for the mean) for its bootstrap to mean anything: a resample's
// extreme values can only repeat the sample's own, so the P99 of fewer
// than 1,000 requests has no interval (it is one of the few slowest).
const minTail = 10

// changeInterval is the 95% bootstrap interval of the relative change
// (stat(b) − stat(a)) / stat(a): each run's requests are resampled with
// replacement, independently of the other's. a and b are sorted ascending.
// Both are NaN when either sample is too small (minTail).
func changeInterval(a, b []float64, s statistic, rng *rand.Rand) (lo, hi float64) {
	if !s.enough(len(a)) || !s.enough(len(b)) {
		return math.NaN(), math.NaN()
	}
	drawA, drawB := s.resampler(a), s.resampler(b)
	rel := make([]float64, bootstrapRounds)
	for i := range rel {
		rel[i] = relChange(drawA(rng), drawB(rng))
	}
	slices.Sort(rel)
	return Quantile(rel, 0.025), Quantile(rel, 0.975)
}

func (s statistic) enough(n int) bool {
	if s.q == 0 {
		return n >= minTail
	}
	return float64(n)*(1-s.q) >= minTail
}

// normalLimitHolds reports whether a resample's mean of sorted follows its
// normal limit: above clt requests, and not so skewed that a few slow ones
// make it a count of how often they were drawn (one request stalled for
// minutes among thousands: the normal limit then draws means below the
// fastest request).
func normalLimitHolds(sorted []float64) bool {
	if len(sorted) <= clt {
		return false
	}
	if sorted[0] == sorted[len(sorted)-1] {
		return true // no spread: every resample's mean is the sample's
	}
	return math.Abs(stat.Skew(sorted, nil)) <= maxSkewPerRootN*math.Sqrt(float64(len(sorted)))
}

// resampler returns a function that draws the statistic of one bootstrap
// resample of sorted.
func (s statistic) resampler(sorted []float64) func(*rand.Rand) float64 {
	n := len(sorted)
	switch {
	case s.q == 0 && normalLimitHolds(sorted):
		m, sd := stat.MeanStdDev(sorted, nil)
		se := sd / math.Sqrt(float64(n))
		return func(rng *rand.Rand) float64 { return m + se*rng.NormFloat64() }
	case s.q == 0:
		return func(rng *rand.Rand) float64 {
			sum := 0.0
			for range n {
				sum += sorted[rng.IntN(n)]
			}
			return sum / float64(n)
		}
	}
	// The quantile of a resample is its k-th smallest draw. Drawing an
	// index is flooring n × a uniform number, which keeps order, so the
	// k-th smallest index is n × the k-th smallest of n uniforms, which is
	// Beta(k, n−k+1): one draw instead of n.
	k := min(max(int(math.Ceil(s.q*float64(n))), 1), n)
	return func(rng *rand.Rand) float64 {
		u := distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1), Src: rng}.Rand()
		return sorted[min(int(u*float64(n)), n-1)]
	}
}
