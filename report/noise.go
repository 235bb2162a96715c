package report

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// bootstrapRounds is how many resamples an interval is read from; at 2,000
// its bounds move by about a point between seeds (up to three for the P99
// of 1,200 requests), little beside its width (there 20–30 points).
const bootstrapRounds = 2000

// clt is the sample size above which a resample's mean is drawn from its
// normal limit, which it then follows closely, instead of by n draws,
// unless the sample is too skewed for its size (normalLimitHolds,
// meanResampler).
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
	tail := 0.025
	if s.q == 0 {
		tail = expandedTail(min(len(a), len(b)))
	}
	return Quantile(rel, tail), Quantile(rel, 1-tail)
}

// expandedTail is the tail share read off the resampled means of n
// requests for a 95% interval: the percentile bootstrap of a mean is as
// narrow as a z-interval with the sample's biased spread, and covers about
// 90% at ten requests, so its bounds are read where a normal reaches
// √(n/(n−1)) × the t quantile of n−1 degrees of freedom instead
// (Hesterberg's expanded percentile interval). It tends to 2.5% as n grows.
func expandedTail(n int) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	return distuv.UnitNormal.CDF(-math.Sqrt(float64(n)/float64(n-1)) * t)
}

func (s statistic) enough(n int) bool {
	if s.q == 0 {
		return n >= minTail
	}
	return float64(n)*(1-s.q) >= minTail
}

// maxPeeled is how many of a skewed sample's most extreme requests a
// resampled mean draws one by one before it resamples every request.
const maxPeeled = 64

// normalLimitHolds reports whether the mean of n resampled requests whose
// standard deviation is sd and skewness skew follows its normal limit:
// above clt requests, and not so skewed that a few slow ones make it a
// count of how often they were drawn (one request stalled for minutes
// among thousands: the normal limit then draws means below the fastest
// request). An overflowed spread is no limit.
func normalLimitHolds(n int, sd, skew float64) bool {
	switch {
	case n <= clt || math.IsInf(sd, 0) || math.IsNaN(sd):
		return false
	case sd == 0:
		return true // no spread: every resample's mean is the sample's
	}
	return math.Abs(skew) <= maxSkewPerRootN*math.Sqrt(float64(n))
}

// moments are the mean, the standard deviation and the skewness of x as
// gonum's stat package gives them, in two passes instead of five (for
// deviations under about 1e100, whose cubes do not overflow; past that
// the skewness is not finite and the sample is resampled request by
// request).
func moments(x []float64) (mean, sd, skew float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	var ss, s3 float64
	for _, v := range x {
		d := v - mean
		ss += d * d
		s3 += d * d * d
	}
	sd = math.Sqrt(ss / (n - 1))
	return mean, sd, s3 / (sd * sd * sd) * n / ((n - 1) * (n - 2))
}

// meanResampler returns a function that draws the mean of one bootstrap
// resample of sorted. Above clt requests the mean of a resample is drawn
// from its normal limit; when the sample is too skewed for that, its few
// most extreme requests are drawn one by one (how often each is picked:
// a binomial count) and the rest from the normal limit of their own sum.
// Only a sample that stays skewed past maxPeeled such requests is
// resampled request by request.
func meanResampler(sorted []float64) func(*rand.Rand) float64 {
	n := len(sorted)
	if n > clt {
		m, sd, skew := moments(sorted)
		if normalLimitHolds(n, sd, skew) {
			se := sd / math.Sqrt(float64(n))
			return func(rng *rand.Rand) float64 { return m + se*rng.NormFloat64() }
		}
		if lo, hi, ok := peelBounds(sorted, skew); ok {
			rm, rsd, _ := moments(sorted[lo:hi])
			peeled := append(slices.Clone(sorted[:lo]), sorted[hi:]...)
			return peeledMean(n, peeled, rm, rsd)
		}
	}
	return func(rng *rand.Rand) float64 {
		sum := 0.0
		for range n {
			sum += sorted[rng.IntN(n)]
		}
		return sum / float64(n)
	}
}

// peelBounds finds the rest, sorted[lo:hi], whose mean follows its normal
// limit once at most maxPeeled extreme requests are taken from its ends.
// Each step doubles the requests taken from the end the rest is skewed
// towards (skew is the whole sample's), so a sample with both a stalled
// and a failed request loses both. ok is false when none is found.
func peelBounds(sorted []float64, skew float64) (lo, hi int, ok bool) {
	n := len(sorted)
	lo, hi = 0, n
	for !math.IsNaN(skew) {
		if skew > 0 {
			hi = n - max(1, 2*(n-hi)) // the slow end
		} else {
			lo = max(1, 2*lo) // the fast end
		}
		if lo+n-hi > maxPeeled {
			return 0, n, false
		}
		var sd float64
		_, sd, skew = moments(sorted[lo:hi])
		if normalLimitHolds(hi-lo, sd, skew) {
			return lo, hi, true
		}
	}
	return 0, n, false
}

// peeledMean draws the mean of a resample of n requests: peeled are drawn
// one by one, the others' sum from its normal limit (their mean m,
// standard deviation sd). Of n draws over n requests, the i-th peeled one
// (from 0) is picked Binomial(draws left, 1/(n−i)) times, which is the
// multinomial count, exactly.
func peeledMean(n int, peeled []float64, m, sd float64) func(*rand.Rand) float64 {
	return func(rng *rand.Rand) float64 {
		left, sum := n, 0.0
		for i, v := range peeled {
			c := distuv.Binomial{N: float64(left), P: 1 / float64(n-i), Src: rng}.Rand()
			sum += c * v
			left -= int(c)
		}
		sum += float64(left)*m + math.Sqrt(float64(left))*sd*rng.NormFloat64()
		return sum / float64(n)
	}
}

// resampler returns a function that draws the statistic of one bootstrap
// resample of sorted.
func (s statistic) resampler(sorted []float64) func(*rand.Rand) float64 {
	n := len(sorted)
	if s.q == 0 {
		return meanResampler(sorted)
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
