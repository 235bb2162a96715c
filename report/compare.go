package report

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/traces"
)

// Change is one metric of two runs side by side.
type Change struct {
	Metric string
	A, B   float64 // NaN: not measured
	Rel    float64 // (B − A) / A; NaN when either is unknown; ±Inf from 0
	// Better is +1 when higher is better (throughput), −1 when lower is
	// better (latency, cost), 0 for context only.
	Better int
	// Gated metrics fail the comparison when they get worse by more than
	// the threshold: every P99, the costs, device-seconds, throughput and
	// the failure rate.
	Gated     bool
	Regressed bool
	// Lo and Hi bound Rel's 95% bootstrap interval, for the latencies and
	// throughputs of a live run, whose requests are one sample of what the
	// engine does (the failure share's is from its counts); NaN when not
	// computed. Noisy marks a change whose interval holds no
	// change (holdsNoChange: a bound of exactly 0 alone is not enough):
	// shown, never flagged.
	Lo, Hi   float64
	Noisy    bool
	noChange bool // the interval holds no change (holdsNoChange)
	// noInterval says why a change that could have had an interval has
	// none; "" otherwise.
	noInterval string
	format     func(float64) string
	series     string // the per-request values behind a latency figure (seriesOf)
	stat       statistic
	// judgedBy is the quantile whose interval Lo and Hi are when the runs
	// hold too few requests beyond stat's for its own (highestWithTail);
	// the zero statistic when they are stat's.
	judgedBy statistic
}

// Compare lines up a (the baseline) and b and flags every gated metric
// that got worse by more than threshold (0.10 = 10%). Metrics unknown on
// either side are shown but never flagged. When either run is live and
// both carry per-request latencies (and, for throughput and goodput,
// Rates), a change whose 95% bootstrap interval includes no change is
// shown as within noise and not flagged (an interval needs minTail
// requests beyond its quantile: 1,000 for a P99; a quantile of fewer is
// judged by highestWithTail's, and without even that it is never
// flagged). The intervals stop
// once ctx is done, and Compare then returns ctx's error.
func Compare(ctx context.Context, a, b *Run, threshold float64) ([]Change, error) {
	ma, mb := a.Metrics, b.Metrics
	secs, usd := numfmt.Secs, numfmt.USD
	f2 := func(v float64) string { return fmtF(v, 2) }
	f0 := func(v float64) string { return fmtF(v, 0) }
	cs := []Change{
		{Metric: "throughput (req/s)", A: ma.ReqPerSec, B: mb.ReqPerSec, Better: +1, Gated: true, format: f2, series: "req/s", stat: meanOf},
		{Metric: "throughput (output tok/s)", A: ma.OutTokPerSec, B: mb.OutTokPerSec, Better: +1, Gated: true, format: f0, series: "output tok/s", stat: meanOf},
		{Metric: "P50 TTFT", A: ma.TTFTP50, B: mb.TTFTP50, Better: -1, format: secs, series: "TTFT", stat: quantile(0.50)},
		{Metric: "P99 TTFT", A: ma.TTFTP99, B: mb.TTFTP99, Better: -1, Gated: true, format: secs, series: "TTFT", stat: quantile(0.99)},
		{Metric: "mean TPOT", A: ma.TPOTMean, B: mb.TPOTMean, Better: -1, format: secs, series: "TPOT", stat: meanOf},
		{Metric: "P99 TPOT", A: ma.TPOTP99, B: mb.TPOTP99, Better: -1, Gated: true, format: secs, series: "TPOT", stat: quantile(0.99)},
		{Metric: "P99 E2E", A: ma.E2EP99, B: mb.E2EP99, Better: -1, Gated: true, format: secs, series: "E2E", stat: quantile(0.99)},
		{Metric: "device-seconds", A: ma.DeviceSeconds, B: mb.DeviceSeconds, Better: -1, Gated: true, format: f0},
		{Metric: "$/1M output (estimated)", A: ma.USDPerMOutEst, B: mb.USDPerMOutEst, Better: -1, Gated: true, format: usd},
		{Metric: "$/1M output (billed)", A: ma.USDPerMOutBilled, B: mb.USDPerMOutBilled, Better: -1, Gated: true, format: usd},
		{Metric: failShareMetric, A: failRate(ma), B: failRate(mb), Better: -1, Gated: true, format: fmtShare},
	}
	if a.NoResult != "" || b.NoResult != "" {
		// A config that had figures and has none (the SLO now fails at
		// every scale, or it errs) regressed, though no metric can say so.
		has := func(r *Run) float64 {
			if r.NoResult != "" {
				return 0
			}
			return 1
		}
		yesNo := func(v float64) string {
			if v == 1 {
				return "yes"
			}
			return "no"
		}
		cs = append(cs, Change{Metric: "has a result", A: has(a), B: has(b), Better: +1, Gated: true, format: yesNo})
	}
	if !a.SLO.IsZero() || !b.SLO.IsZero() { // after throughput
		cs = slices.Insert(cs, 2, Change{Metric: "goodput (req/s)", A: ma.Goodput, B: mb.Goodput, Better: +1, Gated: true, format: f2,
			series: "goodput", stat: meanOf})
	}
	// A measured run (live, a proxy's capture, ...) differs from the next
	// by chance; a simulated one does not.
	sampled := a.Kind != "simulated" || b.Kind != "simulated"
	for i := range cs {
		cs[i].Rel = relChange(cs[i].A, cs[i].B)
		cs[i].Lo, cs[i].Hi = math.NaN(), math.NaN()
	}
	if sampled {
		if err := setIntervals(ctx, cs, a, b); err != nil {
			return nil, err
		}
		setFailureInterval(cs, ma, mb)
	}
	for i := range cs {
		c := &cs[i]
		c.Noisy = c.Rel != 0 && c.noChange // set only with an interval
		if !c.Gated || !known(c.A) || !known(c.B) {
			continue
		}
		worse := c.Rel * float64(-c.Better) // > 0: got worse
		if c.Metric == "has a result" {
			// losing every figure is no change of some size: no threshold
			// lets it pass
			c.Regressed = c.B < c.A
			continue
		}
		if c.Metric == failShareMetric {
			// A share going from 0 to 0.05% is not a 100% regression:
			// flag an absolute rise of more than a tenth of a point too
			// (0.010 − 0.009 is 0.0010000000000000009: exactly a tenth).
			c.Regressed = c.B-c.A > 0.001+1e-12 && (c.A == 0 || worse > threshold+1e-12) && !c.Noisy
			continue
		}
		// A change of exactly the threshold is not more than it, whatever
		// rounding did to the ratio (1.0 → 1.1 is +0.10000000000000009).
		c.Regressed = worse > threshold+1e-12 && !c.Noisy && c.noInterval != tooFewRequests
	}
	return cs, nil
}

// setIntervals sets the bootstrap interval of each known change in cs
// that has a series on both runs, series by series: one series'
// statistics are read from the same resamples of a and b. It stops with
// ctx's error once ctx is done.
func setIntervals(ctx context.Context, cs []Change, a, b *Run) error {
	rng := rand.New(rand.NewPCG(1, 2)) // fixed: the same runs always compare the same
	same := sameSchedule(a, b)
	for _, series := range []string{"req/s", "output tok/s", "goodput", "TTFT", "TPOT", "E2E"} {
		xa, xb := inOrder(a, series), inOrder(b, series)
		if xa == nil || xb == nil {
			continue
		}
		if isRate(series) && same {
			markNoInterval(cs, series, "same schedule: no interval")
			continue
		}
		// enough grows with n: the run that served fewer decides for both
		n := min(countServed(xa), countServed(xb))
		var at []int
		var stats []statistic
		for i, c := range cs {
			switch {
			case c.series != series || !known(c.Rel):
			case !c.stat.enough(n):
				judge, ok := c.stat.highestWithTail(n)
				if !ok {
					cs[i].noInterval = tooFewRequests
					continue
				}
				cs[i].judgedBy = judge
				at, stats = append(at, i), append(stats, judge)
			default:
				at, stats = append(at, i), append(stats, c.stat)
			}
		}
		if len(at) == 0 {
			continue
		}
		pa, pb, paired := pairedSeries(a, b, series)
		if paired {
			xa, xb = pa, pb
		}
		ivs, err := changeIntervals(ctx, xa, xb, stats, paired, rng)
		if err != nil {
			return err
		}
		for j, i := range at {
			cs[i].Lo, cs[i].Hi, cs[i].noChange = ivs[j].lo, ivs[j].hi, ivs[j].noChange
		}
	}
	return nil
}

// setFailureInterval sets the failure share's interval in cs from the
// runs' request counts: two runs of one engine fail by chance (4 and 6
// of 200), which the threshold alone flagged in a third or more of such
// comparisons. Its bounds are the difference's (newcombeInterval) over
// A's share; from a share of 0 the interval has no relative bounds, but
// still says whether it holds no change.
func setFailureInterval(cs []Change, ma, mb Metrics) {
	na, nb := ma.Completed+ma.Failed, mb.Completed+mb.Failed
	if na == 0 || nb == 0 {
		return
	}
	for i := range cs {
		c := &cs[i]
		if c.Metric != failShareMetric {
			continue
		}
		lo, hi := newcombeInterval(ma.Failed, na, mb.Failed, nb)
		c.noChange = lo <= 0 && 0 <= hi
		if c.A > 0 {
			c.Lo, c.Hi = lo/c.A, hi/c.A
		}
	}
}

// newcombeInterval is the 95% interval of the difference kb/nb − ka/na
// of two shares, from each one's Wilson score interval (Newcombe's hybrid
// score method): unlike the normal approximation, it holds at shares
// near 0, where failures are counted.
func newcombeInterval(ka, na, kb, nb int64) (lo, hi float64) {
	pa, pb := float64(ka)/float64(na), float64(kb)/float64(nb)
	loA, hiA := wilsonInterval(ka, na)
	loB, hiB := wilsonInterval(kb, nb)
	d := pb - pa
	return d - math.Hypot(pb-loB, hiA-pa), d + math.Hypot(hiB-pb, pa-loA)
}

// wilsonInterval is the 95% Wilson score interval of the share k/n.
func wilsonInterval(k, n int64) (lo, hi float64) {
	const z = 1.959963984540054
	p, fn := float64(k)/float64(n), float64(n)
	mid := (p + z*z/(2*fn)) / (1 + z*z/fn)
	half := z / (1 + z*z/fn) * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn))
	return max(mid-half, 0), min(mid+half, 1)
}

// isRate says whether series is a throughput's (Rates), not latencies'.
func isRate(series string) bool {
	return series == "req/s" || series == "output tok/s" || series == "goodput"
}

// sameSchedule says whether a and b are open-loop replays of one arrival
// schedule: the same input files, made into the same workload (time scale
// included), all of whose requests were sent at their scheduled times or
// held back by the same in-flight cap (a different cap holds back other
// sends, so the runs did not share their sends' times) and the same
// session wait (one that holds a session's turns sends them later).
// Their throughputs then share the arrivals' randomness, which the slices'
// bootstrap resamples as if drawn afresh: its interval is several times
// too wide (±20% at 200 requests) and would hide an engine's real loss,
// so their throughput is gated by the threshold alone.
func sameSchedule(a, b *Run) bool {
	return a.Arrival == "open" && b.Arrival == "open" && a.InFlightCap == b.InFlightCap &&
		a.SessionWait == b.SessionWait &&
		len(a.InputSums) > 0 && len(b.InputSums) > 0 && traces.SameInputs(a.InputSums, b.InputSums) &&
		a.InputWorkload != nil && b.InputWorkload != nil && maps.Equal(a.InputWorkload, b.InputWorkload) &&
		a.Metrics.Requests > 0 && a.Metrics.Requests == b.Metrics.Requests
}

// pairedSeries is a's and b's latencies of series, in arrival order,
// one request's at each place, over the requests that either served with
// that latency (NaN in the run that did not), and true, when the runs
// are two replays of one schedule (sameSchedule) of the same requests.
// A request slow in one is then slow in the other (a long prompt, a burst
// of arrivals), and resampling each run on its own would count that
// spread as chance between them: its interval would be several times too
// wide. A request that one run failed is missing from that run's
// statistic but still drawn with the pairs (changeIntervals), so that one
// timeout does not make the replays unrelated. nil and false otherwise.
func pairedSeries(a, b *Run, series string) (xa, xb []float64, ok bool) {
	if !sameSchedule(a, b) || a.Lat == nil || b.Lat == nil || a.Lat.ByArrival == nil || b.Lat.ByArrival == nil {
		return nil, nil, false
	}
	la, lb := a.Lat.ByArrival, b.Lat.ByArrival
	ra, rb := la.rows[series], lb.rows[series]
	if len(ra) == 0 || len(rb) == 0 || !slices.Equal(la.ids, lb.ids) {
		return nil, nil, false
	}
	va, vb := seriesOf(la, series), seriesOf(lb, series)
	nan := math.NaN()
	for i, j := 0, 0; i < len(ra) || j < len(rb); {
		switch {
		case j == len(rb) || i < len(ra) && ra[i] < rb[j]: // served in a only
			xa, xb = append(xa, va[i]), append(xb, nan)
			i++
		case i == len(ra) || rb[j] < ra[i]: // in b only
			xa, xb = append(xa, nan), append(xb, vb[j])
			j++
		default:
			xa, xb = append(xa, va[i]), append(xb, vb[j])
			i++
			j++
		}
	}
	return xa, xb, true
}

// tooFewRequests is why a sampled change has no interval when either run
// holds too few requests for its statistic (statistic.enough) and for any
// quantile from the median up: its figures differ by chance beyond any
// usual threshold, so it is shown, never flagged.
const tooFewRequests = "too few requests"

// markNoInterval notes why each known change of series has no interval.
func markNoInterval(cs []Change, series, why string) {
	for i := range cs {
		if cs[i].series == series && known(cs[i].Rel) {
			cs[i].noInterval = why
		}
	}
}

// inOrder is r's values of series, in time order, for a block bootstrap:
// the throughput of each slice of its window past its ramp-up (Rates,
// pastRamp), or its latencies
// (seriesOf) in arrival order; nil when r has none.
//
// A throughput is a mean over the window's slices, so its change is
// bootstrapped as a mean's: the slices of a run, resampled in blocks as
// long as its bursts, are what another run as long would have seen
// slice by slice, and their spread is the run's own luck (arrivals drawn
// afresh, a slow stretch). Two replays of one arrival schedule vary less
// than that, so they get no such interval (sameSchedule).
func inOrder(r *Run, series string) []float64 {
	switch {
	case series == "req/s" && r.Rates != nil:
		return pastRamp(r.Rates.ReqPerSec, r.Rates.ReqPerSec)
	case series == "output tok/s" && r.Rates != nil:
		return pastRamp(r.Rates.OutTokPerSec, r.Rates.ReqPerSec)
	case series == "goodput" && r.Rates != nil:
		return pastRamp(r.Rates.Goodput, r.Rates.ReqPerSec)
	case r.Lat == nil:
		return nil
	}
	return inArrivalOrder(r.Lat, series)
}

// pastRamp is a run's slices x from its first completion on (the first
// of reqs, its successes a second, not 0), each scaled by the share of the
// window they span, so that their mean is still x's: the slices before
// are its ramp-up, zeros every run has once, which resampled would add
// as many or none and widen the interval by chance that is not there
// (−19% … +34% for two steady runs a 10% ramp). nil when x is.
func pastRamp(x, reqs []float64) []float64 {
	if x == nil {
		return nil
	}
	ramp := 0
	for ramp < len(reqs)-1 && reqs[ramp] == 0 {
		ramp++
	}
	share := float64(len(x)-ramp) / float64(len(x))
	rest := make([]float64, len(x)-ramp)
	for i, v := range x[ramp:] {
		rest[i] = v * share
	}
	return rest
}

// inArrivalOrder is l's series (seriesOf), in arrival order, for a block
// bootstrap; where the order is not known, shuffled (by a fixed seed), so
// that blocks of them are independent draws rather than runs of
// neighbouring sorted values.
func inArrivalOrder(l *Latencies, series string) []float64 {
	if l.ByArrival != nil {
		return seriesOf(l.ByArrival, series)
	}
	v := slices.Clone(seriesOf(l, series))
	rng := rand.New(rand.NewPCG(3, 4))
	rng.Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
	return v
}

// seriesOf is l's values of the latency series named: TTFT, TPOT or E2E;
// nil for another name.
func seriesOf(l *Latencies, series string) []float64 {
	switch series {
	case "TTFT":
		return l.TTFT
	case "TPOT":
		return l.TPOT
	case "E2E":
		return l.E2E
	}
	return nil
}

// fmtShare is a share in percent with two decimals: one failure in
// 100,000 is "0.001%", not "0.00%".
func fmtShare(v float64) string { return numfmt.Share(v, 2) }

// failShareMetric names the failure share's change, which Compare gates
// and bounds by its counts rather than as the other metrics.
const failShareMetric = "failed requests (share)"

func failRate(m Metrics) float64 {
	n := m.Completed + m.Failed
	if n == 0 {
		return math.NaN()
	}
	return float64(m.Failed) / float64(n)
}

// roundingRel is a relative difference within floating-point rounding:
// the means of equal values summed in other numbers differ by about 1e-16.
const roundingRel = 1e-12

func relChange(a, b float64) float64 {
	switch {
	case !known(a) || !known(b):
		return math.NaN()
	case math.Abs(b-a) <= roundingRel*math.Abs(a): // no change, but for rounding
		return 0
	case a == 0:
		return math.Copysign(math.Inf(1), b)
	}
	return (b - a) / math.Abs(a)
}

// Regressions counts the flagged changes.
func Regressions(cs []Change) int {
	n := 0
	for _, c := range cs {
		if c.Regressed {
			n++
		}
	}
	return n
}

// WriteComparison prints the two runs and their changes as a table.
func WriteComparison(w io.Writer, a, b *Run, cs []Change, threshold float64) error {
	fmt.Fprintf(w, "A: %s (%s, %s)\n", a.Name, a.Kind, a.Path)
	fmt.Fprintf(w, "B: %s (%s, %s)\n", b.Name, b.Kind, b.Path)
	for _, r := range []struct {
		side string
		run  *Run
	}{{"A", a}, {"B", b}} {
		if r.run.NoResult != "" {
			fmt.Fprintf(w, "%s has no result: %s\n", r.side, r.run.NoResult)
		}
	}
	counts := func(m Metrics) string {
		if m.Requests == 0 && m.Completed == 0 && m.Failed == 0 {
			return "request counts not recorded"
		}
		return fmt.Sprintf("%d completed, %d failed", m.Completed, m.Failed)
	}
	fmt.Fprintf(w, "requests A: %s; B: %s\n", counts(a.Metrics), counts(b.Metrics))
	for _, d := range inputDifferences(a, b) {
		fmt.Fprintf(w, "warning: A and B %s: their figures do not compare\n", d)
	}
	if slo := cmp.Or(a.SLO, b.SLO); !slo.IsZero() {
		met := func(r *Run) string {
			if r.SLO.IsZero() {
				return "not counted (no per-request trace)"
			}
			return fmt.Sprintf("%d of %d", r.Metrics.MetSLO, r.Metrics.Completed+r.Metrics.Failed)
		}
		fmt.Fprintf(w, "within %s A: %s; B: %s\n", slo, met(a), met(b))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tA\tB\tchange\t95% interval\t\t")
	for _, c := range cs {
		flag := ""
		switch {
		case c.Regressed:
			flag = "REGRESSION"
		case c.Noisy:
			flag = "within noise"
		case !known(c.A) || !known(c.B): // a change from 0 (±Inf) was measured
			flag = "not measured"
		case c.Better != 0 && c.Rel*float64(c.Better) >= 0.0005: // shows as at least 0.1%
			flag = "better"
		}
		interval := c.noInterval
		if known(c.Lo) {
			interval = fmt.Sprintf("%s … %s", fmtBound(c.Lo), fmtBound(c.Hi))
		}
		if c.judgedBy.q != 0 && known(c.Lo) {
			interval = fmt.Sprintf("%s of P%.4g", interval, 100*c.judgedBy.q)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Metric, c.format(c.A), c.format(c.B), fmtRel(c.Rel), interval, flag)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n := Regressions(cs); n > 0 {
		_, err := fmt.Fprintf(w, "\n%s beyond %s (higher latency or cost, lower throughput)\n", numfmt.Count(n, "regression"), ThresholdPct(threshold))
		return err
	}
	_, err := fmt.Fprintf(w, "\nno regression beyond %s\n", ThresholdPct(threshold))
	return err
}

// ThresholdPct is a regression threshold (a fraction) as the percentage it
// was given: 12 significant digits keep what was typed (12.345%) and drop
// the parse's rounding (12.345000000000002).
func ThresholdPct(threshold float64) string {
	return fmt.Sprintf("%.12g%%", 100*threshold)
}

// inputDifferences says how a and b ran different inputs, as far as their
// metadata tells: requests from other input files, or the same files
// sliced, scaled, spread or imported otherwise, or fewer of their requests
// served, whose latencies and throughput measure another workload; and
// how their replays treated those requests otherwise (replayDifferences).
// (Another model or device is what a comparison of configs is for.)
func inputDifferences(a, b *Run) []string {
	var ds []string
	if d := traceDifference(a, b); d != "" {
		ds = append(ds, d)
	}
	return append(ds, replayDifferences(a, b)...)
}

// traceDifference says how a and b were fed different requests; "" when
// they were not, or their metadata does not tell.
func traceDifference(a, b *Run) string {
	if len(a.InputSums) > 0 && len(b.InputSums) > 0 {
		if !traces.SameInputs(a.InputSums, b.InputSums) {
			return "were fed different input traces (their checksums differ)"
		}
		if a.InputWorkload != nil && b.InputWorkload != nil && !maps.Equal(a.InputWorkload, b.InputWorkload) {
			return fmt.Sprintf("were fed the same input files made into other workloads (A: %s; B: %s)",
				workloadString(a.InputWorkload), workloadString(b.InputWorkload))
		}
		// A replay stopped early writes only the rows it sent: the same
		// input then ran as a shorter workload, which no checksum tells.
		// (Runs of unknown input, proxy captures, may differ in count.)
		if na, nb := a.Metrics.Requests, b.Metrics.Requests; na > 0 && nb > 0 && na != nb {
			return fmt.Sprintf("served different numbers of requests from the same input (A: %d; B: %d)", na, nb)
		}
	}
	if a.SweepTrace != "" && b.SweepTrace != "" && a.SweepTrace != b.SweepTrace {
		return "were swept over different traces (their sha256 differ)"
	}
	return ""
}

// replayDifferences says which settings of two replays, live or
// simulated, change what their figures measure of the same requests.
func replayDifferences(a, b *Run) []string {
	var ds []string
	if a.Timeout != "" && b.Timeout != "" && !sameDuration(a.Timeout, b.Timeout) {
		// a shorter timeout fails the slowest requests: its latency tail
		// is cut there, and its P99 reads better than the engine served
		ds = append(ds, fmt.Sprintf("ran with different per-request timeouts (A: %s; B: %s; "+
			"a shorter one fails the slowest requests and cuts the latency tail)", a.Timeout, b.Timeout))
	}
	if recordsSessionWait(a) && recordsSessionWait(b) && a.SessionWait != b.SessionWait {
		side := "B"
		if a.SessionWait {
			side = "A"
		}
		ds = append(ds, fmt.Sprintf("ran with session wait only in %s (it held each session's next turn "+
			"until the previous one ended)", side))
	}
	return ds
}

// recordsSessionWait says whether r tells if it held session turns: a
// live replay (replay.arrival) or a simulated trace (its metadata has
// session_wait when it held them). A simulated run known only by its
// summary, or an imported trace, does not.
func recordsSessionWait(r *Run) bool {
	return r.Arrival != "" || r.Kind == "simulated" && r.Lat != nil
}

// sameDuration says whether two recorded durations are equal: 1m0s is
// 60s. Either one that does not parse is compared as written.
func sameDuration(a, b string) bool {
	da, errA := time.ParseDuration(a)
	db, errB := time.ParseDuration(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return da == db
}

// workloadString lists a traces.Workload as key=value, sorted.
func workloadString(w map[string]string) string {
	if len(w) == 0 {
		return "as recorded"
	}
	var s []string
	for _, k := range slices.Sorted(maps.Keys(w)) {
		s = append(s, k+"="+w[k])
	}
	return strings.Join(s, ", ")
}

// fmtRel is a change as a signed percentage; "new" from 0.
func fmtRel(r float64) string { return numfmt.Change(r, "new") }

// fmtBound is an interval's bound as a change: infinite where the
// baseline's resamples held none (a goodput of no success) is
// "unbounded", since "new" would read as the change itself.
func fmtBound(r float64) string { return numfmt.Change(r, "unbounded") }
