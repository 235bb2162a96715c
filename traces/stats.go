package traces

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// Stats summarises a trace. Warm-up rows are counted in Warmup and left
// out of everything else; source-failed rows are counted in Requests and
// SourceFailed but left out of the lengths, as they are never served. A
// row that failed in the run that recorded it keeps its prompt in Input
// but is left out of Output: it served no output, and its output tokens
// are not a served length (a proxy's is how far it got, often 0).
type Stats struct {
	Requests    int64   `json:"requests"`
	Warmup      int64   `json:"warmup"`
	SpanSeconds float64 `json:"span_s"` // last minus first arrival
	// MeanRate (gaps / span: n requests arriving 1/r s apart give r, the
	// rate synth's --rate asks for) and InterArrivalCV (std/mean of the gaps)
	// are nil (null) where there is no gap to measure them by: one request,
	// every arrival at one instant, or (CV) a single gap.
	MeanRate       *float64 `json:"mean_rate_per_s"`
	InterArrivalCV *float64 `json:"interarrival_cv"`
	// Input and Output are nil (null) when no row was counted (rows the
	// source trace marks failed are not; Output: nor are rows that failed
	// live).
	Input        *LenDist `json:"input_tokens"`
	Output       *LenDist `json:"output_tokens"`
	PrefixBlocks int64    `json:"prefix_blocks"`
	// PrefixReuseRatio is blocks whose hash was seen earlier / blocks; nil
	// (null) for a trace without prefix hashes, which has none to reuse.
	PrefixReuseRatio *float64    `json:"prefix_reuse_ratio"`
	SourceFailed     int64       `json:"source_failed"`
	Observed         int64       `json:"observed"`
	Succeeded        int64       `json:"succeeded"`
	Failed           int64       `json:"failed"`
	TTFT             *LatDist    `json:"ttft_ms,omitempty"`
	TPOT             *LatDist    `json:"tpot_ms,omitempty"`
	ITL              *LatDist    `json:"itl_ms,omitempty"` // every gap between two output tokens of a success
	E2E              *LatDist    `json:"e2e_ms,omitempty"`
	ScheduleLag      *LatDist    `json:"schedule_lag_ms,omitempty"` // actual − scheduled send, failed requests included
	Throughput       *Throughput `json:"throughput,omitempty"`      // only for a measured run
	Goodput          *Goodput    `json:"goodput,omitempty"`         // only with an SLO
	// Sessions is nil (absent) where no measured row has a session id.
	Sessions *SessionStats `json:"sessions,omitempty"`
}

// SessionStats describes the sessions of a trace, warm-up rows included
// as the turns they are: a row without a session id belongs to none.
type SessionStats struct {
	Count int64    `json:"count"`
	Turns *LenDist `json:"turns"` // rows per session, warm-up included
	// ContinuedShare is the share of measured rows whose session had a
	// row before them: the turns that can find their history cached.
	ContinuedShare float64 `json:"continued_share"`
}

// Throughput is a measured run's successes and their output tokens
// (Request.ServedOutput) a second over its Window, as `report` gives them
// and as `record` does for the runs it replays, whose successes all carry the
// server's usage. Its rates are nil (null) when no request succeeded:
// there is no window to rate over.
type Throughput struct {
	WindowSeconds      float64  `json:"window_s"`
	OutputTokens       int64    `json:"output_tokens"`
	RequestsPerSec     *float64 `json:"requests_per_s"`
	OutputTokensPerSec *float64 `json:"output_tokens_per_s"`
}

// Goodput is how many requests succeeded within every limit of an SLO, and
// how many a second over the run's Window: nil (null) when no request was
// observed, as in an input trace, where it was not measured.
type Goodput struct {
	SLO    string   `json:"slo"`
	Met    int64    `json:"met"`
	Of     int64    `json:"of"` // requests observed
	PerSec *float64 `json:"per_s"`
}

// LenDist is an exact distribution of token counts (nearest-rank
// percentiles).
type LenDist struct {
	Mean float64 `json:"mean"`
	P50  int32   `json:"p50"`
	P90  int32   `json:"p90"`
	P99  int32   `json:"p99"`
	Max  int32   `json:"max"`
}

// LatDist is a latency distribution in ms. Percentiles come from a
// log-bucketed sketch with at most 0.5% relative error; mean and max are
// exact.
type LatDist struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// StatsBuilder accumulates Stats one request at a time in bounded memory:
// token counts go into exact count histograms (a dense array below 65,536
// and a map above, so memory grows with distinct large lengths only);
// latencies into fixed 4,096-bucket log sketches (32 KiB each). The prefix
// reuse ratio needs the set of block hashes seen so far: a Go map of
// uint64, about 20 bytes per distinct block (10M rows of 20 distinct
// blocks each would need about 4 GB; traces without hashes need none).
// Sessions need a count per distinct session id.
type StatsBuilder struct {
	n, warmup, failedSrc, observed, ok, bad int64
	first, last                             int64
	gaps                                    welford
	in, out                                 countHist
	blocks, reused                          int64
	seen                                    map[uint64]struct{}
	turns                                   map[string]int32 // rows per session id, warm-up included
	continued                               int64
	ttft, tpot, itl, e2e, lag               LatencySketch
	slo                                     SLO
	met, served                             int64
	window                                  Window
}

// NewStatsBuilder returns an empty builder; with a non-zero slo, Stats
// counts goodput against it.
func NewStatsBuilder(slo SLO) *StatsBuilder {
	return &StatsBuilder{seen: map[uint64]struct{}{}, slo: slo}
}

// Add counts r. Requests must come in arrival order for the
// inter-arrival statistics to mean anything.
func (b *StatsBuilder) Add(r *Request) {
	if r.Warmup {
		b.warmup++
		b.addSession(r.SessionID, false)
		return
	}
	if b.n == 0 {
		b.first = r.Arrival
	} else {
		b.gaps.add(float64(r.Arrival-b.last) / 1e9)
	}
	b.last = r.Arrival
	b.n++
	b.addLengths(r)
	b.addSession(r.SessionID, true)
	for _, h := range r.PrefixHashes {
		b.blocks++
		if _, ok := b.seen[h]; ok {
			b.reused++
		} else {
			b.seen[h] = struct{}{}
		}
	}
	if r.SourceFailed {
		b.failedSrc++
	}
	if r.Observed() {
		b.observed++
		b.window.Add(r)
		if !b.slo.IsZero() && b.slo.Met(r) {
			b.met++
		}
		if r.Succeeded() {
			b.ok++
			b.served += int64(r.ServedOutput())
		} else {
			b.bad++
		}
		if v, ok := r.TTFT(); ok {
			b.ttft.Add(float64(v))
		}
		if v, ok := r.TPOT(); ok {
			b.tpot.Add(v)
		}
		r.ITLs(func(gap int64) { b.itl.Add(float64(gap)) })
		if v, ok := r.E2E(); ok {
			b.e2e.Add(float64(v))
		}
		if v, ok := r.ScheduleLag(); ok {
			b.lag.Add(float64(v))
		}
	}
}

// addLengths counts r's lengths as served: a row the source trace marks
// failed is never served (the simulator rejects it, a replay does not send
// it), and one that failed live served no output.
func (b *StatsBuilder) addLengths(r *Request) {
	if r.SourceFailed {
		return
	}
	b.in.add(r.PromptTokens)
	if r.Error == "" {
		b.out.add(r.OutputTokens)
	}
}

// addSession counts a row of session id, "" for none. Warm-up rows count
// too (measured false): the sessions are the trace's, and a measured turn
// after a warm-up one continues its session all the same.
func (b *StatsBuilder) addSession(id string, measured bool) {
	if id == "" {
		return
	}
	if n, ok := b.turns[id]; ok {
		b.turns[id] = n + 1
		if measured {
			b.continued++
		}
		return
	}
	if b.turns == nil {
		b.turns = map[string]int32{}
	}
	b.turns[strings.Clone(id)] = 1 // a reader may reuse the id's bytes
}

// sessions summarises the sessions counted, nil where there were none.
func (b *StatsBuilder) sessions() *SessionStats {
	if len(b.turns) == 0 {
		return nil
	}
	var h countHist
	for _, n := range b.turns {
		h.add(n)
	}
	ss := &SessionStats{Count: int64(len(b.turns)), Turns: h.dist()}
	if b.n > 0 { // only warm-up rows: none continues a session
		ss.ContinuedShare = float64(b.continued) / float64(b.n)
	}
	return ss
}

// Stats returns the summary of everything added so far.
func (b *StatsBuilder) Stats() Stats {
	s := Stats{
		Requests: b.n, Warmup: b.warmup, SourceFailed: b.failedSrc,
		Observed: b.observed, Succeeded: b.ok, Failed: b.bad,
		Input: b.in.dist(), Output: b.out.dist(), PrefixBlocks: b.blocks,
		Sessions: b.sessions(),
	}
	if b.n > 0 {
		s.SpanSeconds = float64(b.last-b.first) / 1e9
	}
	if s.SpanSeconds > 0 {
		rate := float64(b.n-1) / s.SpanSeconds
		s.MeanRate = &rate
	}
	if b.gaps.n > 1 && b.gaps.mean > 0 {
		cv := math.Sqrt(b.gaps.m2/float64(b.gaps.n-1)) / b.gaps.mean
		s.InterArrivalCV = &cv
	}
	if b.blocks > 0 {
		ratio := float64(b.reused) / float64(b.blocks)
		s.PrefixReuseRatio = &ratio
	}
	s.TTFT, s.TPOT, s.ITL, s.E2E, s.ScheduleLag = b.ttft.Dist(), b.tpot.Dist(), b.itl.Dist(), b.e2e.Dist(), b.lag.Dist()
	if b.observed > 0 {
		s.Throughput = b.throughput()
	}
	if !b.slo.IsZero() {
		s.Goodput = &Goodput{SLO: b.slo.String(), Met: b.met, Of: b.observed}
		// A run with no success has no window to rate over: its goodput is
		// unmeasured, as `record` prints it, not 0 req/s.
		if b.window.Duration() > 0 {
			v := b.window.PerSec(b.met)
			s.Goodput.PerSec = &v
		}
	}
	return s
}

// throughput rates the successes over the window, as `record` prints it:
// unmeasured, not 0, when none succeeded.
func (b *StatsBuilder) throughput() *Throughput {
	t := &Throughput{WindowSeconds: b.window.Duration().Seconds(), OutputTokens: b.served}
	if b.window.Duration() > 0 {
		req, tok := b.window.PerSec(b.ok), b.window.PerSec(b.served)
		t.RequestsPerSec, t.OutputTokensPerSec = &req, &tok
	}
	return t
}

// ComputeStats streams r to the end and summarises it, with goodput
// against slo unless it is zero. It does not close r.
func ComputeStats(r Reader, slo SLO) (Stats, error) {
	b := NewStatsBuilder(slo)
	for r.Next() {
		b.Add(r.At())
	}
	return b.Stats(), r.Err()
}

// WriteTable prints s as an aligned two-column table.
func (s *Stats) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	p("requests", "%d", s.Requests)
	if s.Warmup > 0 {
		p("warm-up (excluded)", "%d", s.Warmup)
	}
	p("span", "%.3f s", s.SpanSeconds)
	if s.MeanRate != nil {
		p("mean rate", "%.4f req/s", *s.MeanRate)
	} else {
		p("mean rate", "— (span 0)")
	}
	if s.InterArrivalCV != nil {
		p("inter-arrival CV", "%.3f", *s.InterArrivalCV)
	} else {
		p("inter-arrival CV", "— (needs 3 arrivals over a span > 0)")
	}
	if s.Sessions != nil {
		p("sessions", "%d", s.Sessions.Count)
		p("rows continuing a session", "%.4f", s.Sessions.ContinuedShare)
	}
	fmt.Fprintf(tw, "\tmean\tp50\tp90\tp99\tmax\n")
	for _, d := range []struct {
		k string
		d *LenDist
	}{{"input tokens", s.Input}, {"output tokens", s.Output}} {
		switch {
		case d.d == nil && s.Input != nil:
			p(d.k, "— (every row failed)")
			continue
		case d.d == nil && s.Requests > 0: // only source-failed rows leave no prompt
			p(d.k, "— (every row failed in the source trace)")
			continue
		case d.d == nil:
			p(d.k, "— (no rows)")
			continue
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d\t%d\t%d\n", d.k, d.d.Mean, d.d.P50, d.d.P90, d.d.P99, d.d.Max)
	}
	if d := s.Sessions; d != nil {
		fmt.Fprintf(tw, "turns per session\t%.1f\t%d\t%d\t%d\t%d\n", d.Turns.Mean, d.Turns.P50, d.Turns.P90, d.Turns.P99, d.Turns.Max)
	}
	for _, d := range []struct {
		k string
		d *LatDist
	}{{"TTFT ms", s.TTFT}, {"TPOT ms", s.TPOT}, {"ITL ms", s.ITL}, {"E2E ms", s.E2E}, {"schedule lag ms", s.ScheduleLag}} {
		if d.d != nil {
			fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", d.k, d.d.Mean, d.d.P50, d.d.P90, d.d.P99, d.d.Max)
		}
	}
	if s.PrefixBlocks > 0 {
		p("prefix blocks", "%d", s.PrefixBlocks)
		p("prefix reuse ratio", "%.4f", *s.PrefixReuseRatio)
	}
	p("source failed", "%d", s.SourceFailed)
	if s.Observed > 0 {
		p("observed", "%d", s.Observed)
		p("succeeded", "%d", s.Succeeded)
		p("failed", "%d", s.Failed)
	}
	switch t := s.Throughput; {
	case t == nil:
	case t.RequestsPerSec == nil:
		p("throughput", "— (no request succeeded)")
	default:
		p("throughput", "%.4f req/s, %.1f output tok/s over %.3f s", *t.RequestsPerSec, *t.OutputTokensPerSec, t.WindowSeconds)
	}
	switch g := s.Goodput; {
	case g == nil:
	case g.PerSec == nil && g.Of > 0:
		p("goodput", "— (no request succeeded): 0 of %d requests within %s", g.Of, g.SLO)
	case g.PerSec == nil:
		p("goodput", "— (no measured requests to hold to %s)", g.SLO)
	default:
		p("goodput", "%.4f req/s: %d of %d requests within %s", *g.PerSec, g.Met, g.Of, g.SLO)
	}
	return tw.Flush()
}

// welford is a running mean and sum of squared deviations.
type welford struct {
	n        int64
	mean, m2 float64
}

func (w *welford) add(x float64) {
	w.n++
	d := x - w.mean
	w.mean += d / float64(w.n)
	w.m2 += d * (x - w.mean)
}

// countHist counts int32 values exactly.
type countHist struct {
	small [1 << 16]uint64
	large map[int32]uint64
	n     int64
	sum   float64
	max   int32
}

func (h *countHist) add(v int32) {
	if v < 0 {
		v = 0
	}
	if int(v) < len(h.small) {
		h.small[v]++
	} else {
		if h.large == nil {
			h.large = map[int32]uint64{}
		}
		h.large[v]++
	}
	if h.n == 0 || v > h.max {
		h.max = v
	}
	h.n++
	h.sum += float64(v)
}

func (h *countHist) dist() *LenDist {
	if h.n == 0 {
		return nil
	}
	d := &LenDist{Mean: h.sum / float64(h.n), Max: h.max}
	ranks := []int64{rank(0.50, h.n), rank(0.90, h.n), rank(0.99, h.n)}
	dst := []*int32{&d.P50, &d.P90, &d.P99}
	var cum int64
	k := 0
	for v, c := range h.small {
		cum += int64(c)
		for k < len(ranks) && cum >= ranks[k] {
			*dst[k] = int32(v)
			k++
		}
	}
	if k < len(ranks) {
		keys := make([]int32, 0, len(h.large))
		for v := range h.large {
			keys = append(keys, v)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		for _, v := range keys {
			cum += int64(h.large[v])
			for k < len(ranks) && cum >= ranks[k] {
				*dst[k] = v
				k++
			}
		}
	}
	return d
}

// rank is the 1-based nearest rank of quantile q among n values.
func rank(q float64, n int64) int64 {
	r := int64(math.Ceil(q * float64(n)))
	if r < 1 {
		r = 1
	}
	return r
}

// LatencySketch is a fixed-size (32 KiB) log-bucketed histogram of
// non-negative latencies in ns: bucket i holds (gamma^(i-1), gamma^i], so
// its percentiles are within (gamma-1)/(gamma+1) = 0.5% relative error.
// The zero value is empty.
type LatencySketch struct {
	buckets       [4096]uint64
	zero          uint64 // values < 1
	n             int64
	sum, min, max float64
}

const sketchGamma = 1.01

var logGamma = math.Log(sketchGamma)

// Add counts one latency of v ns.
func (s *LatencySketch) Add(v float64) {
	if v > s.max || s.n == 0 {
		s.max = v
	}
	if v < s.min || s.n == 0 {
		s.min = v
	}
	s.n++
	s.sum += v
	if v < 1 {
		s.zero++
		return
	}
	i := int(math.Ceil(math.Log(v) / logGamma))
	if i >= len(s.buckets) {
		i = len(s.buckets) - 1
	}
	s.buckets[i]++
}

// quantile is the value of nearest rank q: its bucket's midpoint, kept
// within the smallest and largest values seen (a bucket's midpoint may lie
// beyond them, and every value below 1, a negative one included, counts
// as 0).
func (s *LatencySketch) quantile(q float64) float64 {
	r := rank(q, s.n)
	cum := int64(s.zero)
	v := s.max
	if cum >= r {
		v = 0
	} else {
		for i, c := range s.buckets {
			cum += int64(c)
			if cum >= r {
				v = 2 * math.Pow(sketchGamma, float64(i)) / (sketchGamma + 1)
				break
			}
		}
	}
	return math.Min(math.Max(v, s.min), s.max)
}

// Dist returns the distribution in ms, or nil when nothing was added.
func (s *LatencySketch) Dist() *LatDist {
	if s.n == 0 {
		return nil
	}
	return &LatDist{
		Count: s.n, Mean: s.sum / float64(s.n) / 1e6, Max: s.max / 1e6,
		P50: s.quantile(0.50) / 1e6, P90: s.quantile(0.90) / 1e6, P99: s.quantile(0.99) / 1e6,
	}
}
