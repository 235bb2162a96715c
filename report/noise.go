package report

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// bootstrapRounds is how many resamples an interval is read from; at 2,000
// its bounds move by about a point between seeds (up to three for the P99
// of 1,200 requests), little beside its width (there 20–30 points).
const bootstrapRounds = 2000

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

// interval bounds a relative change; both NaN when not computed.
// noChange says whether it holds no change (holdsNoChange).
type interval struct {
	lo, hi   float64
	noChange bool
}

// changeIntervals are the 95% bootstrap intervals of the relative changes
// (stat(b) − stat(a)) / stat(a) of each of stats: each run's requests, in
// arrival order, are resampled in circular blocks (sampleBlockLength),
// independently of the other's, since latencies under load come in bursts
// that independent draws would read as a run's own luck many times over.
// When paired, a[i] and b[i] are one request's (pairedSeries), NaN in
// the run that did not serve it, and the pairs are resampled together:
// the same blocks, of the longer length, each run's statistic read from
// the requests it served among them.
// A sample's block length is estimated once, and each round's resamples
// serve every statistic, so that the intervals of one series agree. An
// interval is NaN when either sample is too small for it (minTail); a
// resample in which a run served none is left out of it. Each round
// first checks ctx, and a done ctx ends the intervals with its error.
func changeIntervals(ctx context.Context, a, b []float64, stats []statistic, paired bool, rng *rand.Rand) ([]interval, error) {
	ivs := make([]interval, len(stats))
	var drawA, drawB []func([]int) float64
	var used []int // the indexes in stats of drawA and drawB
	la, lb := 0, 0
	servedA, servedB := served(a), served(b)
	for i, s := range stats {
		ivs[i] = interval{lo: math.NaN(), hi: math.NaN()}
		if !s.enough(len(servedA)) || !s.enough(len(servedB)) {
			continue
		}
		if used == nil {
			la, lb = sampleBlockLength(servedA), sampleBlockLength(servedB)
			if paired {
				la, lb = max(la, lb), max(la, lb)
			}
		}
		used = append(used, i)
		drawA, drawB = append(drawA, s.resampler(a, la)), append(drawB, s.resampler(b, lb))
	}
	if used == nil {
		return ivs, nil
	}
	blA, blB := blocksOf(len(a), la), blocksOf(len(b), lb)
	startsA, startsB := make([]int, blA.count), make([]int, blB.count)
	rel := make([][]float64, len(used))
	for j := range rel {
		rel[j] = make([]float64, bootstrapRounds)
	}
	for r := range bootstrapRounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		blA.drawStarts(rng, startsA)
		if paired {
			copy(startsB, startsA)
		} else {
			blB.drawStarts(rng, startsB)
		}
		for j := range used {
			rel[j][r] = relChange(drawA[j](startsA), drawB[j](startsB))
		}
	}
	for j, i := range used {
		// a paired resample whose blocks missed every request one run
		// served has no change to read: NaN would sort below every bound
		rel[j] = slices.DeleteFunc(rel[j], math.IsNaN)
		if len(rel[j]) == 0 {
			continue
		}
		slices.Sort(rel[j])
		tail := 0.025
		if stats[i].q == 0 {
			tail = expandedTail(min(len(servedA), len(servedB)))
		}
		ivs[i] = interval{Quantile(rel[j], tail), Quantile(rel[j], 1-tail), holdsNoChange(rel[j], tail)}
	}
	return ivs, nil
}

// served is x's values of the requests served, those that are not NaN:
// x itself when it holds every request's.
func served(x []float64) []float64 {
	if !slices.ContainsFunc(x, math.IsNaN) {
		return x
	}
	return slices.DeleteFunc(slices.Clone(x), math.IsNaN)
}

// countServed is how many of x's values are of requests served (not
// NaN), counted without the copy served makes.
func countServed(x []float64) int {
	n := 0
	for _, v := range x {
		if !math.IsNaN(v) {
			n++
		}
	}
	return n
}

// holdsNoChange says whether the resampled changes rel put no change
// inside their interval of tails tail: whether on each side as many of
// them lie at or beyond it as the bound there (Quantile's rank) needs,
// those of exactly no change counted half to each (the mid-p rule). A
// quantile of latencies that come in steps is often the same in
// resamples of both runs, so its interval can end at exactly no change
// with few resamples there and none beyond: a bound of 0 alone would read
// a rise that most resamples show as chance.
func holdsNoChange(rel []float64, tail float64) bool {
	below, zero, above := 0, 0, 0
	for _, r := range rel {
		switch {
		case r < 0:
			below++
		case r > 0:
			above++
		case r == 0:
			zero++
		}
	}
	// Each side needs as many as the rank Quantile reads its bound at
	// leaves there (the upper one more than tail × n when that is whole),
	// so that without ties the rule agrees with the bounds printed.
	n := len(rel)
	lowRank := max(int(math.Ceil(tail*float64(n))), 1)
	highRank := min(max(int(math.Ceil((1-tail)*float64(n))), 1), n)
	half := float64(zero) / 2
	return float64(below)+half >= float64(lowRank) && float64(above)+half >= float64(n-highRank+1)
}

// blockLength is the block length of the circular block bootstrap of n
// requests: n^(1/3) rounded up, the usual choice (long enough to hold a
// burst's correlation, short enough to leave many blocks to draw), in
// integers so that 1,000 requests get blocks of exactly ten.
func blockLength(n int) int {
	l := max(int(math.Round(math.Cbrt(float64(n)))), 1)
	for l*l*l < n {
		l++
	}
	return l
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

// highestWithTail is, for a quantile whose n requests hold too few
// beyond it for an interval, the highest quantile they hold enough for,
// and true: the P95 of 200 requests for their P99. A whole tail grown
// slower shows there too, and a tail of a few requests alone that moved
// is chance the P99 cannot tell from a change. False for the mean, and
// where not even the median has enough.
func (s statistic) highestWithTail(n int) (statistic, bool) {
	if s.q == 0 || n < 2*minTail {
		return statistic{}, false
	}
	q := float64(n-minTail) / float64(n)
	for !quantile(q).enough(n) { // rounding
		q = math.Nextafter(q, 0)
	}
	return quantile(q), true
}

func (s statistic) enough(n int) bool {
	if s.q == 0 {
		return n >= minTail
	}
	return float64(n)*(1-s.q) >= minTail
}

// blocks are the circular blocks of a sample of n requests in arrival
// order, each of length l (the sample's end wraps to its start): a
// resample is count − 1 whole blocks and the first last requests of one
// more, together n requests, each block starting at a request drawn
// uniformly.
type blocks struct{ n, l, count, last int }

func blocksOf(n, l int) blocks {
	l = min(max(l, 1), n)
	count := (n + l - 1) / l
	return blocks{n: n, l: l, count: count, last: n - (count-1)*l}
}

// drawStarts draws the start of each of a resample's blocks into starts
// (bl.count of them), the last the partial block's.
func (bl blocks) drawStarts(rng *rand.Rand, starts []int) {
	for c := range starts {
		starts[c] = rng.IntN(bl.n)
	}
}

// windowSums is the sum of the w requests from each start, wrapping, in
// linear time: cut into chunks of w, a window is the rest of its start's
// chunk and the beginning of the next, each summed once for all windows.
// Only adding (never taking a sum back out) keeps a stalled request from
// leaving rounding error in the windows past it.
func windowSums(x []float64, w int) []float64 {
	n := len(x)
	ext := append(x[:n:n], x[:w-1]...) // the windows wrap
	rest, upTo := make([]float64, len(ext)), make([]float64, len(ext))
	for i, v := range ext {
		upTo[i] = v
		if i%w != 0 {
			upTo[i] += upTo[i-1]
		}
	}
	for i := len(ext) - 1; i >= 0; i-- {
		rest[i] = ext[i]
		if i%w != w-1 && i+1 < len(ext) {
			rest[i] += rest[i+1]
		}
	}
	sums := make([]float64, n)
	for i := range sums {
		sums[i] = rest[i]
		if i%w != 0 {
			sums[i] += upTo[i+w-1]
		}
	}
	return sums
}

// meanResampler returns a function that reads the mean of the circular
// block bootstrap resample of x whose blocks start at starts (drawStarts):
// the sum of its blocks' sums, read from the sums of every block, so a
// draw costs a block count, not n. A NaN (a request not served) is left
// out of the resample's sum and its count.
func meanResampler(x []float64, l int) func(starts []int) float64 {
	bl := blocksOf(len(x), l)
	if slices.ContainsFunc(x, math.IsNaN) {
		return servedMeanResampler(x, bl)
	}
	whole, part := windowSums(x, bl.l), windowSums(x, bl.last)
	return func(starts []int) float64 {
		sum := 0.0
		for _, start := range starts[:bl.count-1] {
			sum += whole[start]
		}
		sum += part[starts[bl.count-1]]
		return sum / float64(bl.n)
	}
}

// servedMeanResampler is meanResampler of x holding NaNs: each block's
// sum of the values served and their count.
func servedMeanResampler(x []float64, bl blocks) func(starts []int) float64 {
	vals, ones := make([]float64, len(x)), make([]float64, len(x))
	for i, v := range x {
		if !math.IsNaN(v) {
			vals[i], ones[i] = v, 1
		}
	}
	whole, part := windowSums(vals, bl.l), windowSums(vals, bl.last)
	wholeN, partN := windowSums(ones, bl.l), windowSums(ones, bl.last)
	return func(starts []int) float64 {
		sum, n := 0.0, 0.0
		for _, start := range starts[:bl.count-1] {
			sum, n = sum+whole[start], n+wholeN[start]
		}
		last := starts[bl.count-1]
		sum, n = sum+part[last], n+partN[last]
		return sum / n // NaN when the resample served none
	}
}

// resampler returns a function that reads the statistic of the circular
// block bootstrap resample of x, in arrival order, with blocks of l
// requests starting at starts (drawStarts).
func (s statistic) resampler(x []float64, l int) func(starts []int) float64 {
	if s.q == 0 {
		return meanResampler(x, l)
	}
	return quantileResampler(x, l, s.q)
}

// bandSDs is how many standard deviations of a resample's count below
// the sample's quantile the band of requests a resampled quantile is
// selected among reaches each side of it; a resample whose quantile falls
// outside is read in full.
const bandSDs = 6

// bandHalfWidth is how many ranks the band reaches each side of rank k:
// bandSDs standard deviations of a resample's count of requests ranked
// below k, plus a block. The count is a sum of independent block counts,
// so its variance is read from the sample's own blocks: near n·q(1−q) for
// independent requests, n·l·q(1−q) only when every block is all in or all
// out, so the band is sized to the sample rather than the worst case.
func bandHalfWidth(rank []int, bl blocks, k int) int {
	whole, part := countsBelow(rank, k-1, bl.l), countsBelow(rank, k-1, bl.last)
	sd := math.Sqrt(float64(bl.count-1)*variance(whole) + variance(part))
	return int(math.Ceil(bandSDs*sd)) + bl.l
}

// variance is the population variance of counts.
func variance(counts []int) float64 {
	sum, sumSq := 0.0, 0.0
	for _, c := range counts {
		sum += float64(c)
		sumSq += float64(c) * float64(c)
	}
	m := sum / float64(len(counts))
	return max(sumSq/float64(len(counts))-m*m, 0)
}

// quantileResampler returns a function that reads the nearest-rank
// quantile q of the circular block bootstrap resample of x whose blocks
// start at starts (drawStarts). Only the
// requests ranked near the sample's quantile (the band) are gathered and
// selected among; the others are counted per block, read from counts of
// every block, so a draw costs the block count and the band, not n.
// A NaN (a request not served) is left out: the quantile is of the
// values served in the resample, ranked after every one of them.
func quantileResampler(x []float64, l int, q float64) func(starts []int) float64 {
	bl := blocksOf(len(x), l)
	n := bl.n
	nServed := countServed(x)
	k := nearestRank(q, nServed)
	rank := ranks(x)
	half := bandHalfWidth(rank, bl, k)
	if nServed < n { // a resample's k moves with its count served
		half += bandHalfWidth(rank, bl, nServed+1)
	}
	lo, hi := max(k-1-half, 0), min(k+half, nServed) // the band's ranks, [lo, hi)
	rankOf := resampleRank(rank, bl, nServed, q)
	// The band's values in arrival order; for each position, how many of
	// the block from it rank below the band and the index among the band's
	// values of the first at or after it, side by side (int32, so a draw's
	// random reads, one a block, stay within fewer cache lines).
	var band []float64
	at := make([]blockStart, n+1)
	for i, r := range rank {
		at[i].first = int32(len(band))
		if r >= lo && r < hi {
			band = append(band, x[i])
		}
	}
	at[n].first = int32(len(band))
	for i, c := range countsBelow(rank, lo, bl.l) {
		at[i].below = int32(c)
	}
	belowPart := countsBelow(rank, lo, bl.last)
	picked := make([]float64, 0, 2*len(band))
	var all []float64
	return func(starts []int) float64 {
		rk := rankOf(starts)
		if rk == 0 {
			return math.NaN() // the resample served none
		}
		below := 0
		picked = picked[:0]
		for c, start := range starts {
			end := start + bl.l
			if c < bl.count-1 {
				below += int(at[start].below)
			} else {
				end = start + bl.last
				below += belowPart[start]
			}
			picked = append(picked, band[at[start].first:at[min(end, n)].first]...)
			if end > n { // wrapped to the sample's start
				picked = append(picked, band[:at[end-n].first]...)
			}
		}
		if j := rk - below; j >= 1 && j <= len(picked) {
			return kthSmallest(picked, j)
		}
		if all == nil {
			all = make([]float64, n)
		}
		filled := 0
		for c, start := range starts {
			w := bl.l
			if c == bl.count-1 {
				w = bl.last
			}
			filled += copyWrapped(all[filled:filled+w], x, start)
		}
		if nServed < n {
			return kthSmallest(slices.DeleteFunc(all, math.IsNaN), rk)
		}
		return kthSmallest(all, rk)
	}
}

// resampleRank returns a function that reads the rank (from 1) of the
// nearest-rank quantile q among the values served (ranked below
// nServed) in the resample whose blocks start at starts; 0 when it
// served none. Where every request was served it is the sample's.
func resampleRank(rank []int, bl blocks, nServed int, q float64) func(starts []int) int {
	if nServed == bl.n {
		k := nearestRank(q, bl.n)
		return func([]int) int { return k }
	}
	whole, part := countsBelow(rank, nServed, bl.l), countsBelow(rank, nServed, bl.last)
	return func(starts []int) int {
		m := part[starts[bl.count-1]]
		for _, start := range starts[:bl.count-1] {
			m += whole[start]
		}
		return nearestRank(q, m)
	}
}

// blockStart is what a resampled quantile reads of the block starting at
// one position: how many of its requests rank below the band, and where
// the band's values from that position on begin.
type blockStart struct{ below, first int32 }

// ranks is each value's place in x sorted ascending (from 0), ties by
// position, so that every rank is held once; NaNs (requests not served)
// rank after every value.
func ranks(x []float64) []int {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		if ni, nj := math.IsNaN(x[i]), math.IsNaN(x[j]); ni || nj {
			return cmp.Compare(b2i(ni), b2i(nj))
		}
		return cmp.Compare(x[i], x[j])
	})
	rank := make([]int, len(x))
	for r, i := range order {
		rank[i] = r
	}
	return rank
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// countsBelow is how many of the w requests from each start, wrapping,
// rank below lo.
func countsBelow(rank []int, lo, w int) []int {
	n := len(rank)
	below := func(i int) int {
		if rank[i%n] < lo {
			return 1
		}
		return 0
	}
	counts := make([]int, n)
	for j := range w {
		counts[0] += below(j)
	}
	for i := 1; i < n; i++ {
		counts[i] = counts[i-1] - below(i-1) + below(i-1+w)
	}
	return counts
}

// copyWrapped copies len(dst) values of x from start on, wrapping to
// x's start, and returns how many.
func copyWrapped(dst, x []float64, start int) int {
	n := copy(dst, x[start:])
	copy(dst[n:], x)
	return len(dst)
}

// kthSmallest is the k-th smallest of v (from 1), as v sorted would give
// it at k−1, found in linear time on average; v is reordered. The
// partition is three-way, so a sample of many equal values (a TPOT
// clipped to one step) takes no more.
func kthSmallest(v []float64, k int) float64 {
	k--
	for len(v) > 1 {
		p := v[len(v)/2]
		lt, i, gt := 0, 0, len(v)
		for i < gt {
			switch {
			case v[i] < p:
				v[lt], v[i] = v[i], v[lt]
				lt++
				i++
			case v[i] > p:
				gt--
				v[i], v[gt] = v[gt], v[i]
			default:
				i++
			}
		}
		switch {
		case k < lt:
			v = v[:lt]
		case k >= gt:
			v, k = v[gt:], k-gt
		default:
			return p
		}
	}
	return v[0]
}

// sampleBlockLength is the block length for the requests x, in arrival
// order: blockLength(len(x)), or longer where x's own autocorrelation
// says its bursts outlast that (Politis and White's automatic choice for
// the circular block bootstrap, as corrected by Patton, Politis and
// White, 2009), at most min(3√n, n/3) so that many blocks are left to
// draw. Blocks of ⌈n^⅓⌉ hold bursts of some ten requests; a trace whose
// latencies stay high for a hundred would otherwise get an interval far
// too narrow.
func sampleBlockLength(x []float64) int {
	n := len(x)
	l := blockLength(n)
	if n < minAutocorrSample {
		return l
	}
	maxLen := int(math.Ceil(min(3*math.Sqrt(float64(n)), float64(n)/3)))
	return max(l, min(politisWhiteLength(x), maxLen))
}

// minAutocorrSample is the fewest requests whose autocorrelations choose
// a block length: in fewer, chance correlations read as bursts.
const minAutocorrSample = 100

// politisWhiteLength is the estimated optimal circular block length of x:
// the autocovariances are summed up to twice the lag past which a run of
// them is insignificant, under a flat-top window, and the block is
// (2G²/D)^(1/3) n^(1/3), with D = (4/3) × the long-run variance squared.
// 0 when x does not vary.
func politisWhiteLength(x []float64) int {
	n := len(x)
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(n)
	eps := make([]float64, n)
	for i, v := range x {
		eps[i] = v - m
	}
	acv := func(k int) float64 {
		s := 0.0
		for i := k; i < n; i++ {
			s += eps[i] * eps[i-k]
		}
		return s / float64(n)
	}
	v0 := acv(0)
	if !(v0 > 0) || math.IsInf(v0, 0) {
		return 0
	}
	// a run of kn lags whose autocorrelations are all within the
	// critical value ends the correlation (Politis and White's rule, their
	// max(5, log10 n) rounded up as R's b.star does)
	kn := max(5, int(math.Ceil(math.Log10(float64(n)))))
	maxLag := int(math.Ceil(math.Sqrt(float64(n)))) + kn
	crit := 2 * math.Sqrt(math.Log10(float64(n))/float64(n))
	cov := []float64{v0}
	lags, quiet := maxLag, 0
	for k := 1; k <= maxLag && k < n; k++ {
		cov = append(cov, acv(k))
		if math.Abs(cov[k]/v0) < crit {
			quiet++
		} else {
			quiet = 0
		}
		if quiet == kn {
			lags = min(2*max(k-kn+1, 1), maxLag)
			break
		}
	}
	for k := len(cov); k <= lags && k < n; k++ {
		cov = append(cov, acv(k))
	}
	lags = min(lags, len(cov)-1)
	g, longRun := 0.0, v0
	for k := 1; k <= lags; k++ {
		w := flatTop(float64(k) / float64(lags))
		g += 2 * w * float64(k) * cov[k]
		longRun += 2 * w * cov[k]
	}
	d := 4.0 / 3 * longRun * longRun
	if !(d > 0) {
		return 0
	}
	return int(math.Ceil(math.Cbrt(2*g*g/d) * math.Cbrt(float64(n))))
}

// flatTop is the trapezoidal window of Politis and White: 1 up to half
// its reach, falling to 0 at its end.
func flatTop(t float64) float64 {
	if t <= 0.5 {
		return 1
	}
	return max(2*(1-t), 0)
}
