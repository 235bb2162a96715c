package replay

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/servesim/servesim/traces"
)

// Latency is a distribution summary. N = 0 means nothing was measured and
// the other fields are zero.
type Latency struct {
	N                   int
	P50, P90, P99, Mean time.Duration
	Max                 time.Duration
}

// Summary is one run's result. Warm-up rows are counted in Warmup only;
// failed requests are counted but never enter latency statistics.
type Summary struct {
	Run          int            // 1-based run number within Record; 1 for Run
	Written      bool           // Record wrote the run's trace (an interrupted run's too, once a measured row completed)
	RowsKeptIn   string         // a run Record did not write: the partial file that keeps its rows, "" when none
	Interrupted  bool           // an interrupt stopped the run before every row was done
	Sent         int            // requests sent (warm-up excluded)
	Warmup       int            // warm-up requests sent
	Succeeded    int            // of Sent
	Failed       int            // of Sent
	FailedByKind map[string]int // ErrorKind → count
	NotSent      int            // rows read but never sent (the run stopped early: interrupted, or a read or write error)
	SourceFailed int            // rows the source trace marks failed, warm-up or not: never sent, written as the simulator rejects them
	// Wall is the measurement window (traces.Window): the first scheduled
	// send of a non-warm-up request to the last token of a successful one.
	Wall time.Duration
	// Origin is the run's trace time 0 on the monotonic clock (zero when
	// no request succeeded, Wall being 0); WindowFrom and WindowTo are
	// Wall's ends on it.
	// Telemetry taken beside the run is cut to them.
	Origin, WindowFrom, WindowTo time.Time
	RequestsPerSec               float64 // Succeeded / Wall
	OutputTokens                 int64   // usage completion tokens of successes
	OutputTokensPerSec           float64 // OutputTokens / Wall
	TTFT, TPOT, E2E              Latency // successes only; TTFT and E2E from the scheduled send
	// ITL is every gap between two output tokens of a success (tokens a
	// chunk carried together share its gap); percentiles within 0.5%.
	ITL Latency
	Lag Latency // schedule lag: actual − scheduled send, every sent request
	// ClientLag is Lag less any wait for a concurrency slot: how late the
	// client itself was. A send the cap held back waited for the server,
	// so only ClientLag flags the run.
	ClientLag  Latency
	LagFlagged bool // ClientLag.P99 > LagLimit
	// CapWaits counts the sends the cap held back (open loop with a cap):
	// those that waited for a free slot and those due while the cap held
	// earlier rows back, which went late behind them (warm-up excluded).
	CapWaits   int
	ZeroOutput int // rows of output_tokens 0, sent with max_tokens 1 (warm-up excluded)
	// ShortPrompt counts rows whose prompt_tokens are below the text
	// model's overhead plus one byte of text: sent longer than the trace
	// says (warm-up excluded).
	ShortPrompt int
	// SessionWait: turns were held for the previous turn of their session
	// (Config.SessionWait). SessionHeld counts the held sends (warm-up
	// excluded); SessionHold is how long each was held, SessionHoldTotal
	// their sum.
	SessionWait      bool
	SessionHeld      int
	SessionHold      Latency
	SessionHoldTotal time.Duration
	// Goodput: the successes within every limit of SLO (Config.SLO; zero:
	// not counted), and their requests and output tokens per second of Wall.
	SLO                          traces.SLO
	MetSLO                       int
	GoodputPerSec, GoodputTokens float64
	Text                         TextModel
	Warnings                     []string
}

// collector accumulates a run's statistics from completed rows, written
// or, after a write error, not.
type collector struct {
	s               Summary
	ttft, tpot, e2e []float64
	lag, clientLag  []float64
	holds           []float64
	itl             traces.LatencySketch
	metTokens       int64
	window          traces.Window
	outTokens       int64
	origin          time.Time // the run's trace time 0
}

func newCollector(slo traces.SLO) *collector {
	return &collector{s: Summary{Run: 1, FailedByKind: map[string]int{}, SLO: slo}}
}

func (c *collector) add(r *traces.Request) { c.addWaited(r, 0) }

// addWaited adds r, whose send the concurrency cap held back capWait.
func (c *collector) addWaited(r *traces.Request, capWait time.Duration) {
	if r.Warmup {
		c.s.Warmup++
		return
	}
	c.s.Sent++
	if r.OutputTokens == 0 {
		c.s.ZeroOutput++
	}
	if capWait > 0 {
		c.s.CapWaits++
	}
	if lag, ok := r.ScheduleLag(); ok {
		c.lag = append(c.lag, float64(lag))
		c.clientLag = append(c.clientLag, float64(lag-int64(capWait)))
	}
	c.window.Add(r)
	if !r.Succeeded() {
		c.s.Failed++
		c.s.FailedByKind[ErrorKind(r.Error)]++
		return
	}
	c.s.Succeeded++
	if r.UsageOutput > 0 {
		c.outTokens += int64(r.UsageOutput)
	}
	if v, ok := r.TTFT(); ok {
		c.ttft = append(c.ttft, float64(v))
	}
	if v, ok := r.TPOT(); ok {
		c.tpot = append(c.tpot, v)
	}
	r.ITLs(func(gap int64) { c.itl.Add(float64(gap)) })
	if !c.s.SLO.IsZero() && c.s.SLO.Met(r) {
		c.s.MetSLO++
		c.metTokens += max(int64(r.UsageOutput), 0)
	}
	if v, ok := r.E2E(); ok {
		c.e2e = append(c.e2e, float64(v))
	}
}

// addHold adds r's hold for the previous turn of its session.
func (c *collector) addHold(r *traces.Request, hold time.Duration) {
	if r.Warmup || hold <= 0 {
		return
	}
	c.s.SessionHeld++
	c.s.SessionHoldTotal += hold
	c.holds = append(c.holds, float64(hold))
}

func (c *collector) summary() *Summary {
	s := c.s
	s.SessionHold = latency(c.holds)
	s.TTFT, s.TPOT, s.E2E, s.Lag = latency(c.ttft), latency(c.tpot), latency(c.e2e), latency(c.lag)
	s.ITL = sketched(c.itl.Dist())
	s.ClientLag = latency(c.clientLag)
	s.LagFlagged = s.ClientLag.N > 0 && s.ClientLag.P99 > LagLimit
	s.OutputTokens = c.outTokens
	s.Wall = c.window.Duration()
	if first, last, ok := c.window.Bounds(); ok && !c.origin.IsZero() {
		s.Origin = c.origin
		s.WindowFrom, s.WindowTo = c.origin.Add(time.Duration(first)), c.origin.Add(time.Duration(last))
	}
	s.RequestsPerSec = c.window.PerSec(int64(s.Succeeded))
	s.OutputTokensPerSec = c.window.PerSec(c.outTokens)
	s.GoodputPerSec = c.window.PerSec(int64(s.MetSLO))
	s.GoodputTokens = c.window.PerSec(c.metTokens)
	return &s
}

// latency summarises ns values with nearest-rank percentiles.
func latency(v []float64) Latency {
	if len(v) == 0 {
		return Latency{}
	}
	slices.Sort(v)
	var sum float64
	for _, x := range v {
		sum += x
	}
	d := func(x float64) time.Duration { return time.Duration(math.Round(x)) }
	return Latency{N: len(v), P50: d(quantile(v, 0.5)), P90: d(quantile(v, 0.9)), P99: d(quantile(v, 0.99)),
		Mean: d(sum / float64(len(v))), Max: d(v[len(v)-1])}
}

// sketched converts a sketch's distribution (ms) to a Latency.
func sketched(d *traces.LatDist) Latency {
	if d == nil {
		return Latency{}
	}
	ms := func(v float64) time.Duration { return time.Duration(math.Round(v * 1e6)) }
	return Latency{N: int(d.Count), P50: ms(d.P50), P90: ms(d.P90), P99: ms(d.P99), Mean: ms(d.Mean), Max: ms(d.Max)}
}

// quantile is the nearest-rank quantile of sorted v.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Print writes the summary for people.
func (s *Summary) Print(w io.Writer) {
	interrupted := ""
	if s.Interrupted {
		interrupted = " (interrupted)"
	}
	fmt.Fprintf(w, "run %d%s: sent %d, succeeded %d, failed %d", s.Run, interrupted, s.Sent, s.Succeeded, s.Failed)
	if s.Warmup > 0 {
		fmt.Fprintf(w, " (+%d warm-up, not counted)", s.Warmup)
	}
	switch {
	case s.NotSent == 0:
	case s.Interrupted:
		fmt.Fprintf(w, ", %d not sent (the interrupt stopped the run)", s.NotSent)
	default:
		fmt.Fprintf(w, ", %d not sent (the run stopped early)", s.NotSent)
	}
	if s.SourceFailed > 0 {
		fmt.Fprintf(w, ", %d not sent (failed in the source trace: rejected, as the simulator rejects them)", s.SourceFailed)
	}
	fmt.Fprintln(w)
	if s.Failed > 0 {
		kinds := make([]string, 0, len(s.FailedByKind))
		for k := range s.FailedByKind {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, s.FailedByKind[k])
			if k == KindCanceled && s.Interrupted {
				// Else they read as failures of the server.
				parts[i] += " (cut short by the interrupt)"
			}
		}
		fmt.Fprintf(w, "  failed by kind: %s\n", strings.Join(parts, ", "))
	}
	if s.Succeeded == 0 { // no window to measure rates over
		fmt.Fprintf(w, "  throughput: — (no request succeeded)\n")
	} else {
		fmt.Fprintf(w, "  throughput: %.2f req/s, %.1f output tok/s over %v\n", s.RequestsPerSec, s.OutputTokensPerSec, s.Wall.Round(time.Millisecond))
	}
	row := func(name string, l Latency) {
		if l.N == 0 {
			fmt.Fprintf(w, "  %-13s n/a\n", name)
			return
		}
		fmt.Fprintf(w, "  %-13s mean %-10v p50 %-10v p90 %-10v p99 %-10v (n=%d)\n", name, round(l.Mean), round(l.P50), round(l.P90), round(l.P99), l.N)
	}
	switch {
	case s.SLO.IsZero():
	case s.Succeeded == 0: // as throughput: no window, so no rate
		fmt.Fprintf(w, "  goodput:    — (no request succeeded): %d of %d requests within %s\n", s.MetSLO, s.Sent, s.SLO)
	default:
		fmt.Fprintf(w, "  goodput:    %.2f req/s, %.1f output tok/s: %d of %d requests within %s\n",
			s.GoodputPerSec, s.GoodputTokens, s.MetSLO, s.Sent, s.SLO)
	}
	row("TTFT", s.TTFT)
	row("TPOT", s.TPOT)
	row("ITL", s.ITL)
	row("E2E", s.E2E)
	flag := "ok"
	if s.LagFlagged {
		flag = fmt.Sprintf("FLAGGED: over %v", LagLimit)
	}
	switch {
	case s.Lag.N == 0: // nothing was sent: no lag was measured, not a lag of 0
		fmt.Fprint(w, "  schedule lag n/a")
	case s.CapWaits > 0:
		sends := "sends were"
		if s.CapWaits == 1 {
			sends = "send was"
		}
		fmt.Fprintf(w, "  schedule lag p99 %v, max %v; %d %s held back by the concurrency cap; without the waits p99 %v (%s)",
			round(s.Lag.P99), round(s.Lag.Max), s.CapWaits, sends, round(s.ClientLag.P99), flag)
	default:
		fmt.Fprintf(w, "  schedule lag p99 %v, max %v (%s)", round(s.Lag.P99), round(s.Lag.Max), flag)
	}
	fmt.Fprintln(w)
	s.printSessionWait(w)
	if n := s.ZeroOutput; n > 0 {
		rows := "rows have"
		if n == 1 {
			rows = "row has"
		}
		fmt.Fprintf(w, "  %d %s output_tokens 0: sent with max_tokens 1 (servers refuse 0), each measures at least 1 output token\n", n, rows)
	}
	if n := s.ShortPrompt; n > 0 {
		rows := "rows have"
		if n == 1 {
			rows = "row has"
		}
		fmt.Fprintf(w, "  %d %s fewer prompt tokens than the request's overhead and one byte of text (%.4g): sent with that many\n",
			n, rows, s.Text.Tokens(1))
	}
	for _, m := range s.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", m)
	}
}

// printSessionWait says how many turns waited for the previous turn of
// their session, and how long: the engine's slowness, not the client's lag.
func (s *Summary) printSessionWait(w io.Writer) {
	switch {
	case !s.SessionWait:
	case s.SessionHeld == 0:
		fmt.Fprintf(w, "  session wait: no turn held for the previous turn of its session\n")
	default:
		turns := "turns held until the previous turn of their session ended"
		if s.SessionHeld == 1 {
			turns = "turn held until the previous turn of its session ended"
		}
		fmt.Fprintf(w, "  session wait: %d %s: %v in all, p99 %v\n", s.SessionHeld, turns, round(s.SessionHoldTotal), round(s.SessionHold.P99))
	}
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// clientLagRow is the spread's row of the schedule lag less the waits for
// a concurrency slot: the lag that flags a run.
const clientLagRow = "client lag p99"

// SpreadRow is one metric's spread over repeated runs.
type SpreadRow struct {
	Metric         string
	Unit           string // "ms", "req/s", "tok/s", "count"
	Min, Mean, Max float64
	Runs, Of       int // the runs that measured the metric, of the runs given
}

// Spread returns the min/mean/max over the complete runs of the key
// metrics. An interrupted run is left out whole: the requests it cut short
// count as failed and its rates cover only part of its schedule. A latency
// or rate a run did not measure (no successful request) is left out of
// that metric's figures; each row says how many of the complete runs it
// covers, and a metric no run measured gets no row.
func Spread(runs []*Summary) []SpreadRow {
	runs = slices.DeleteFunc(slices.Clone(runs), func(s *Summary) bool { return s.Interrupted })
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	p50 := func(l Latency) time.Duration { return l.P50 }
	p99 := func(l Latency) time.Duration { return l.P99 }
	ttft := func(s *Summary) Latency { return s.TTFT }
	tpot := func(s *Summary) Latency { return s.TPOT }
	itl := func(s *Summary) Latency { return s.ITL }
	e2e := func(s *Summary) Latency { return s.E2E }
	lag := func(s *Summary) Latency { return s.Lag }
	clientLag := func(s *Summary) Latency { return s.ClientLag }
	type metric struct {
		name, unit string
		get        func(*Summary) float64
		has        func(*Summary) bool // whether a run measured it
	}
	sent := func(s *Summary) bool { return s.Sent > 0 }
	// Rates need a window, which only a success ends: a run that sent
	// requests and saw none succeed measured none (its summary prints "—").
	window := func(s *Summary) bool { return s.Wall > 0 }
	latMetric := func(name string, l func(*Summary) Latency, p func(Latency) time.Duration) metric {
		return metric{name, "ms", func(s *Summary) float64 { return ms(p(l(s))) }, func(s *Summary) bool { return l(s).N > 0 }}
	}
	metrics := []metric{
		{"throughput", "req/s", func(s *Summary) float64 { return s.RequestsPerSec }, window},
		{"output tokens", "tok/s", func(s *Summary) float64 { return s.OutputTokensPerSec }, window},
		{"goodput", "req/s", func(s *Summary) float64 { return s.GoodputPerSec }, window}, // only with an SLO
		latMetric("TTFT p50", ttft, p50),
		latMetric("TTFT p99", ttft, p99),
		latMetric("TPOT p50", tpot, p50),
		latMetric("TPOT p99", tpot, p99),
		latMetric("ITL p99", itl, p99),
		latMetric("E2E p50", e2e, p50),
		latMetric("E2E p99", e2e, p99),
		latMetric("schedule lag p99", lag, p99),
		latMetric(clientLagRow, clientLag, p99), // only with cap waits
		{"failed", "count", func(s *Summary) float64 { return float64(s.Failed) }, sent},
	}
	// Without a wait for a concurrency slot the client lag is the
	// schedule lag: a second row would repeat it.
	capWaited := slices.ContainsFunc(runs, func(s *Summary) bool { return s.CapWaits > 0 })
	var out []SpreadRow
	for _, m := range metrics {
		if len(runs) == 0 {
			break
		}
		if m.name == "goodput" && runs[0].SLO.IsZero() || m.name == clientLagRow && !capWaited {
			continue
		}
		row := SpreadRow{Metric: m.name, Unit: m.unit, Min: math.Inf(1), Max: math.Inf(-1)}
		var sum float64
		n := 0
		for _, s := range runs {
			if !m.has(s) {
				continue
			}
			v := m.get(s)
			row.Min, row.Max = math.Min(row.Min, v), math.Max(row.Max, v)
			sum += v
			n++
		}
		if n == 0 {
			continue
		}
		row.Mean = sum / float64(n)
		row.Runs, row.Of = n, len(runs)
		out = append(out, row)
	}
	return out
}

// PrintSpread writes the spread table of runs.
func PrintSpread(w io.Writer, runs []*Summary) {
	rows := Spread(runs)
	fmt.Fprintf(w, "spread over runs:   %12s %12s %12s\n", "min", "mean", "max")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-16s %12.3f %12.3f %12.3f %s", r.Metric, r.Min, r.Mean, r.Max, r.Unit)
		if r.Runs < r.Of {
			fmt.Fprintf(w, " (%d of %d runs)", r.Runs, r.Of)
		}
		fmt.Fprintln(w)
	}
	if slices.ContainsFunc(rows, func(r SpreadRow) bool { return r.Metric == clientLagRow }) {
		fmt.Fprintf(w, "  schedule lag includes the waits for a concurrency slot; client lag, without them, flags a run over %v\n", LagLimit)
	}
	for _, s := range runs {
		if s.Interrupted {
			fmt.Fprintf(w, "  run %d was interrupted: left out of the spread\n", s.Run)
		}
	}
}
