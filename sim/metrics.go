package sim

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/servesim/servesim/traces"
)

// Summary is the outcome of one run. Times are seconds; latencies are
// measured from the request's arrival. Costs are left to the caller, who
// has BusySeconds, Makespan, DeviceSeconds, EnergyJoules and the token
// totals. Warm-up rows are simulated (they load the engine) but, as in a
// live run, left out of every figure: counts, tokens, latencies, and the
// window, which opens at the first other arrival (in a closed loop, its
// issue, as a live one's opens at the first scheduled send) and closes at
// the last measured completion, as a live run's closes at its last token (a
// request refused after it takes no engine time); busy time and KV
// occupancy count only inside it, so a warm-up row's steps after it are
// left out. A run that a static OOM stopped before any measured request
// completed has no window (Makespan 0), though its steps took engine time
// and KV, as a live run has none until a request succeeds; but a cluster
// whose other replica was still working on a measured request holds it
// to the OOM (see ClusterSummary), a window with no completion in it,
// whose rates are null in JSON (see MarshalJSON).
type Summary struct {
	Policy      string
	Requests    int64 // arrived, or kept from arriving by the OOM that stopped the run (rows marked not run)
	Completed   int64
	Rejected    int64 // could never run (too large for memory or budget)
	Preemptions int64

	// Token totals of completed requests.
	InputTokens, OutputTokens, CachedTokens int64

	FirstArrival  float64 // s from trace start; a closed loop's first issue
	Makespan      float64 // first arrival → last completion
	BusySeconds   float64 // Σ step durations inside the window
	Utilization   float64 // BusySeconds / Makespan
	DeviceSeconds float64 // Devices × Makespan
	EnergyJoules  float64 // Devices × Power(Utilization) × Makespan; traces.Missing (-1, null in JSON) without Config.Power

	ReqPerSec, InputTokPerSec, OutputTokPerSec float64 // completed, over Makespan

	// Latency distributions of completed requests. TPOT only
	// counts requests with at least two output tokens.
	Queue, TTFT, TPOT, E2E Dist

	KV KVStats

	PrefixLookups, PrefixHits int64   // KV blocks looked up in / found in the prefix cache, at first schedulings (as vLLM counts)
	PrefixHitRate             float64 // PrefixHits / PrefixLookups; 0 (null in JSON) when nothing was looked up

	Steps        int64 // engine iterations simulated
	Stretches    int64 // pure-decode stretches jumped over
	StretchSteps int64 // steps inside those stretches (also counted in Steps)

	OOM *OOMReport // a static batch did not fit; the run stopped there
}

// Dist summarises one latency in seconds. Percentiles are nearest-rank.
// Up to 1<<20 values they are exact; beyond, values go to a log histogram
// whose percentiles are within 0.5% relative error and never beyond the
// smallest or largest value (Max and Mean stay exact).
type Dist struct {
	N                        int64
	Mean, P50, P90, P99, Max float64
}

// MarshalJSON writes an empty distribution's statistics as null: nothing
// was measured, and a 0 would read as an instant latency.
func (d Dist) MarshalJSON() ([]byte, error) {
	if d.N == 0 {
		return []byte(`{"N":0,"Mean":null,"P50":null,"P90":null,"P99":null,"Max":null}`), nil
	}
	type plain Dist // without this method
	return json.Marshal(plain(d))
}

// MarshalJSON writes the rates and the KV mean of a run without a window
// (nothing arrived, every request was refused on arrival, or an OOM stopped
// the run before a measured request completed) as null: over
// no time nothing was measured, and a 0 would read as a measured zero
// throughput or an empty cache (the table prints "—"). The rates of a
// window with no completion in it (a cluster held to an OOM) are null
// too, as a live run with no success has none; its utilisation and KV
// mean were measured and stand. The prefix hit rate
// of a run that looked nothing up is null too: a 0 would read as a cache
// that missed. The energy of a run without a power model (traces.Missing
// in memory) is null too: -1 J would read as a figure. Decoding a null
// leaves 0; read Makespan or PrefixLookups beside it (report.ParseSummary
// reads a null energy back as traces.Missing).
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary // without this method
	var hitRate, energy *float64
	if s.PrefixLookups > 0 {
		hitRate = &s.PrefixHitRate
	}
	if s.EnergyJoules >= 0 {
		energy = &s.EnergyJoules
	}
	switch {
	case s.Makespan > 0 && s.Completed > 0 && hitRate != nil && energy != nil:
		return json.Marshal(plain(s))
	case s.Makespan > 0 && s.Completed > 0:
		return json.Marshal(struct {
			plain
			EnergyJoules, PrefixHitRate *float64
		}{plain: plain(s), EnergyJoules: energy, PrefixHitRate: hitRate})
	case s.Makespan > 0: // a cluster held to an OOM: the window stands, nothing completed in it
		return json.Marshal(struct {
			plain
			EnergyJoules                               *float64
			ReqPerSec, InputTokPerSec, OutputTokPerSec *float64
			PrefixHitRate                              *float64
		}{plain: plain(s), EnergyJoules: energy, PrefixHitRate: hitRate})
	}
	return json.Marshal(struct {
		plain
		Utilization, EnergyJoules, ReqPerSec, InputTokPerSec, OutputTokPerSec *float64
		KV                                                                    kvWithoutWindow
		PrefixHitRate                                                         *float64
	}{plain: plain(s), EnergyJoules: energy, KV: kvWithoutWindow{plainKV: plainKV(s.KV)}, PrefixHitRate: hitRate})
}

// kvWithoutWindow is KVStats with its means written as null.
type kvWithoutWindow struct {
	plainKV
	MeanUsed, MeanUtil *float64
}

type plainKV KVStats

// KVStats is KV block occupancy (blocks referenced by some request; cached
// blocks nobody references count as free).
type KVStats struct {
	TotalBlocks int
	MeanUsed    float64 // time-weighted over the makespan; 0 (null in JSON) without one
	MaxUsed     int
	MeanUtil    float64 // MeanUsed / TotalBlocks
	MaxUtil     float64
	// Series has at most about 1000 points: each is the maximum used in a
	// bucket starting at T (seconds); bucket width doubles as the run grows.
	Series []KVPoint
}

// KVPoint is one sample of the KV occupancy series.
type KVPoint struct {
	T    float64 // s from trace start
	Used int
}

type metrics struct {
	cfg                 *Config
	requests, completes int64 // every row, warm-up included (engine.outstanding)
	rejects             int64
	// Warm-up rows load the engine but stay out of the statistics, as in
	// a live run: measured counts the others, and the window (firstArrival
	// to lastEvent) is theirs.
	measured           struct{ requests, completes, rejects int64 }
	in, outTok, cached int64
	preemptions        int64
	firstArrival       int64
	lastEvent          int64
	busy               float64
	steps, stretches   int64
	stretchSteps       int64
	queue, ttft        sketch
	tpot, e2e          sketch

	// lastDoneN requests completed at lastDoneT, the latest completion
	// time (for engine.outstanding).
	lastDoneT, lastDoneN int64

	kvLastT    int64
	kvLastUsed int
	kvIntegral float64 // block·ns
	kvMax      int
	// rampT0 and rampU0 start the last stretch recorded (kvRamp), which
	// ended at kvLastT with kvLastUsed blocks.
	rampT0 int64
	rampU0 int
	series kvSeries
	// seriesAfter holds the usage set from lastEvent on, in time order:
	// the window may end before it, and the bucket holding the end must
	// not take what a warm-up row's batch holds after it.
	seriesAfter []kvPt
	checkErr    error

	// tail holds the iterations since the last one that ran a measured
	// request: warm-up rows' work, which counts only as far as the
	// window reaches, known when the run ends.
	tail []span
}

// span is an iteration from t0 to t1 ns that ran only warm-up rows, with
// the busy time, KV integral and KV peak counted before it, the busy time
// counted after it, and the blocks referenced at its start and end.
type span struct {
	t0, t1       int64
	busy0, busy1 float64
	kv0          float64
	u0, u1, max0 int
}

func newMetrics(cfg *Config) *metrics {
	return &metrics{cfg: cfg, firstArrival: -1, kvLastT: -1, lastDoneT: -1, series: newKVSeries(0)}
}

// arrived counts s, which reached an engine whose clock reads now.
func (m *metrics) arrived(s *seq, now int64) {
	m.requests++
	if s.req.Warmup {
		return
	}
	m.measured.requests++
	if m.firstArrival < 0 {
		// At its issue: a held turn's latencies start before it arrives.
		m.open(s.origin, now)
	}
}

// issued opens the window at origin, when a closed loop's client picks
// up r, on an engine whose clock reads now ≥ origin: a live closed loop's
// window opens at the first scheduled send, where the latencies start,
// not when the request reaches the engine. Session waiting calls it for a
// held turn, issued at its previous turn's end.
func (m *metrics) issued(r *traces.Request, origin, now int64) {
	if !r.Warmup && m.firstArrival < 0 {
		m.open(origin, now)
	}
}

// open opens the window at t, the first arrival that is not a warm-up
// row, on an engine whose clock reads now: what warm-up rows held before
// stays out of it. A step (or stretch) still under way at t ends at
// now > t: its part inside the window counts.
func (m *metrics) open(t, now int64) {
	m.firstArrival = t
	// A stretch that ran past t grew its blocks evenly up to kvLastUsed:
	// the window opens with what it held at t.
	u, u1 := m.kvLastUsed, m.kvLastUsed
	m.kvIntegral = 0
	if m.kvLastT > t {
		f := float64(t-m.rampT0) / float64(m.kvLastT-m.rampT0)
		ut := float64(m.rampU0) + f*float64(u1-m.rampU0)
		m.kvIntegral = (ut + float64(u1)) / 2 * float64(m.kvLastT-t)
		u = int(math.Round(ut))
	} else {
		m.kvLastT = t
	}
	m.kvMax = u1
	// The series starts with the window too: what warm-up rows held
	// before it is no figure of the run.
	m.series, m.seriesAfter = newKVSeries(t), m.seriesAfter[:0]
	m.series.add(t, u)
	if m.kvLastT > t {
		m.seriesAt(m.kvLastT-1, u1)
	}
	m.tail = m.tail[:0]
	if now > t {
		m.busy += float64(now-t) / 1e9
		// Only warm-up rows ran before: the step under way is one of them.
		m.tail = append(m.tail, span{t0: t, t1: now, busy1: m.busy, u0: u, u1: u1, max0: u})
	}
}

// kvTo is the KV integral up to t ≥ kvLastT.
func (m *metrics) kvTo(t int64) float64 {
	return m.kvIntegral + float64(m.kvLastUsed)*float64(t-m.kvLastT)
}

// mark is what the window has counted when an iteration starts at t0,
// before its blocks are recorded; track takes it when the iteration ends.
// An iteration that runs a measured request needs none (most do).
func (m *metrics) mark(t0 int64, measured bool) span {
	if measured || m.firstArrival < 0 {
		return span{}
	}
	return span{t0: t0, busy0: m.busy, kv0: m.kvTo(t0), max0: m.kvMax}
}

// track records an iteration that began with sp and ended at t1, with u0
// blocks referenced at its start and u1 at its end. One that ran a
// measured request ends the tail: everything before it is inside the
// window, which reaches at least that request's completion.
func (m *metrics) track(sp span, t1 int64, u0, u1 int, measured bool) {
	if measured {
		m.tail = m.tail[:0]
		return
	}
	if m.firstArrival < 0 {
		return
	}
	sp.t1, sp.busy1, sp.u0, sp.u1 = t1, m.busy, u0, u1
	m.tail = append(m.tail, sp)
}

// within returns the busy time, KV integral (block·ns) and KV peak counted
// up to end, the window's end: a warm-up row's iteration under way then
// counts up to it, and those after it not at all.
func (m *metrics) within(end int64) (busy, kv float64, peak int) {
	i := slices.IndexFunc(m.tail, func(sp span) bool { return sp.t1 > end })
	if i < 0 {
		m.kvAt(end, m.kvLastUsed)
		return m.busy, m.kvIntegral, m.kvMax
	}
	sp := m.tail[i]
	if end <= sp.t0 {
		return sp.busy0, sp.kv0, sp.max0
	}
	// A stretch allocates as it goes: its blocks grow from u0 to u1.
	f := float64(end-sp.t0) / float64(sp.t1-sp.t0)
	u := float64(sp.u0) + f*float64(sp.u1-sp.u0)
	busy = max(sp.busy0, sp.busy1-float64(sp.t1-end)/1e9)
	kv = sp.kv0 + (float64(sp.u0)+u)/2*float64(end-sp.t0)
	return busy, kv, max(sp.max0, sp.u0, int(math.Round(u)))
}

// addBusy counts a step (or stretch) of dt seconds that ended at end, the
// part of it inside the window.
func (m *metrics) addBusy(end int64, dt float64) {
	switch {
	case m.firstArrival < 0:
		return
	case float64(end-m.firstArrival) < dt*1e9:
		dt = float64(end-m.firstArrival) / 1e9
	}
	m.busy += dt
}

func (m *metrics) event(t int64) {
	m.lastEvent = max(m.lastEvent, t)
	m.seriesUpTo(m.lastEvent)
}

// seriesAt records used blocks from t on in the series, once the window is
// known to go on after t (every window reaches lastEvent).
func (m *metrics) seriesAt(t int64, used int) {
	if t < m.lastEvent {
		m.seriesUpTo(t)
		m.series.add(t, used)
		return
	}
	m.seriesAfter = append(m.seriesAfter, kvPt{t, used})
}

// seriesUpTo moves the usage set before end into the series.
func (m *metrics) seriesUpTo(end int64) {
	i := 0
	for ; i < len(m.seriesAfter) && m.seriesAfter[i].t < end; i++ {
		m.series.add(m.seriesAfter[i].t, m.seriesAfter[i].used)
	}
	if i > 0 {
		m.seriesAfter = m.seriesAfter[:copy(m.seriesAfter, m.seriesAfter[i:])]
	}
}

// rejected counts s, refused as it arrived (as vLLM answers at once),
// whatever the engine was doing then: an engine that jumped a stretch
// past the arrival would otherwise date the rejection later than stepping.
func (m *metrics) rejected(s *seq) {
	m.rejects++
	if s.req.Warmup {
		return
	}
	m.measured.rejects++
}

// finished counts s as no longer outstanding, at once (engine.outstanding).
func (m *metrics) finished(s *seq) {
	m.completes++
	if s.last != m.lastDoneT {
		m.lastDoneT, m.lastDoneN = s.last, 0
	}
	m.lastDoneN++
}

// completed records finished s's figures when it is reported.
func (m *metrics) completed(s *seq) {
	if s.req.Warmup {
		return
	}
	m.measured.completes++
	m.event(s.last)
	m.in += int64(s.prompt)
	m.outTok += int64(s.out)
	m.cached += int64(s.cached)
	m.queue.add(float64(s.start-s.origin) / 1e9)
	m.ttft.add(float64(s.first-s.origin) / 1e9)
	m.e2e.add(float64(s.last-s.origin) / 1e9)
	if s.out >= 2 {
		m.tpot.add(float64(s.last-s.first) / 1e9 / float64(s.out-1))
	}
}

// cut ends the figures at stop, when an OOM elsewhere stopped the run
// while the engine was in a step (or stretch) that ends at now > stop: its
// busy time and KV occupancy after stop are left out.
func (m *metrics) cut(stop, now int64) {
	if now > stop && m.firstArrival >= 0 {
		m.busy = max(0, m.busy-float64(now-stop)/1e9)
	}
	if m.kvLastT > stop {
		m.kvIntegral = max(0, m.kvIntegral-float64(m.kvLastUsed)*float64(m.kvLastT-stop))
		m.kvLastT = stop
	}
}

// kvAt records that from t on, used blocks are referenced.
func (m *metrics) kvAt(t int64, used int) {
	if m.kvLastT >= 0 && t > m.kvLastT {
		m.kvIntegral += float64(m.kvLastUsed) * float64(t-m.kvLastT)
	}
	if t > m.kvLastT {
		m.kvLastT = t
	}
	m.kvLastUsed = used
	m.kvMax = max(m.kvMax, used)
	m.seriesAt(m.kvLastT, used) // from t, or from the window's opening after t
}

// kvRamp records a pure-decode stretch from t0 to t1 during which usage grew
// from u0 to u1; the integral takes the trapezoid (usage grows by whole
// blocks at block boundaries, close to linearly).
func (m *metrics) kvRamp(t0, t1 int64, u0, u1 int) {
	m.kvIntegral += float64(u0+u1) / 2 * float64(t1-t0)
	m.kvLastT, m.kvLastUsed = t1, u1
	m.rampT0, m.rampU0 = t0, u0
	m.kvMax = max(m.kvMax, u1)
	// u1 is reached within the stretch, before a window that ends with it.
	m.seriesAt(t1-1, u1)
}

func (e *engine) summary() *Summary {
	first, end := e.m.firstArrival, int64(-1)
	if first >= 0 {
		end = max(e.m.lastEvent, first)
	}
	return e.summaryOver(first, end)
}

// summaryOver summarises the run over the window from first to end (ns;
// first < 0: no window, nothing arrived). A cluster passes its own window
// so that every replica is held, and its utilisation measured, over the
// same span.
func (e *engine) summaryOver(first, end int64) *Summary {
	m := e.m
	s := &Summary{
		Policy: e.cfg.Policy.Name, Requests: m.measured.requests, Completed: m.measured.completes, Rejected: m.measured.rejects,
		Preemptions: m.preemptions, InputTokens: m.in, OutputTokens: m.outTok, CachedTokens: m.cached,
		Steps: m.steps, Stretches: m.stretches, StretchSteps: m.stretchSteps, OOM: e.oom,
		PrefixLookups: e.bm.lookups, PrefixHits: e.bm.hits,
		Queue: m.queue.dist(), TTFT: m.ttft.dist(), TPOT: m.tpot.dist(), E2E: m.e2e.dist(),
		EnergyJoules: traces.Missing,
	}
	if s.PrefixLookups > 0 {
		s.PrefixHitRate = float64(s.PrefixHits) / float64(s.PrefixLookups)
	}
	s.KV.TotalBlocks = e.cfg.TotalBlocks
	var kv float64
	peak := 0 // no window: only warm-up rows ran, and they are no figure
	if first >= 0 {
		s.FirstArrival = float64(first) / 1e9
		s.BusySeconds, kv, peak = m.within(end)
		s.Makespan = float64(end-first) / 1e9
	}
	s.DeviceSeconds = float64(e.cfg.Devices) * s.Makespan
	if s.Makespan > 0 {
		s.Utilization = min(1, s.BusySeconds/s.Makespan)
		s.ReqPerSec = float64(s.Completed) / s.Makespan
		s.InputTokPerSec = float64(s.InputTokens) / s.Makespan
		s.OutputTokPerSec = float64(s.OutputTokens) / s.Makespan
		s.KV.MeanUsed = kv / (s.Makespan * 1e9)
	}
	if e.cfg.Power != nil {
		s.EnergyJoules = float64(e.cfg.Devices) * e.cfg.Power(s.Utilization) * s.Makespan
	}
	s.KV.MaxUsed = peak
	s.KV.MeanUtil = s.KV.MeanUsed / float64(e.cfg.TotalBlocks)
	s.KV.MaxUtil = float64(peak) / float64(e.cfg.TotalBlocks)
	// The series covers the window only: a warm-up row's iterations after
	// its end are left out, even within the bucket that holds the end.
	if first >= 0 {
		series := m.series
		series.pts = slices.Clone(series.pts)
		for _, p := range m.seriesAfter {
			// At the end itself, the blocks the window's last requests
			// free count; those a batch starting then takes do not.
			if p.t > end || p.t == end && p.used > series.last {
				break
			}
			series.add(p.t, p.used)
		}
		s.KV.Series = make([]KVPoint, 0, len(series.pts))
		for _, p := range series.pts {
			s.KV.Series = append(s.KV.Series, KVPoint{T: float64(p.t) / 1e9, Used: p.used})
		}
	}
	return s
}

// kvSeries keeps at most maxKVPoints buckets of the maximum usage, that
// carried into a bucket included.
type kvSeries struct {
	width int64 // ns
	start int64 // ns; buckets count from it, the window's opening
	pts   []kvPt
	last  int // the usage set last
}

// newKVSeries starts a series of 1 ms buckets from start, which widen as
// it grows.
func newKVSeries(start int64) kvSeries { return kvSeries{width: 1e6, start: start} }

type kvPt struct {
	t    int64
	used int
}

const maxKVPoints = 1000

func (k *kvSeries) add(t int64, used int) {
	carried := k.last
	k.last = used
	// Most points fall in the last bucket: that needs no division.
	if n := len(k.pts); n > 0 {
		if b := k.pts[n-1].t; b >= k.start && t >= b && t-b < k.width {
			k.pts[n-1].used = max(k.pts[n-1].used, used)
			return
		}
	}
	b := t - (t-k.start)%k.width
	if n := len(k.pts); n > 0 && k.pts[n-1].t == b {
		k.pts[n-1].used = max(k.pts[n-1].used, used)
		return
	}
	if t > b { // what was referenced when the bucket started still was
		used = max(used, carried)
	}
	k.pts = append(k.pts, kvPt{b, used})
	for len(k.pts) > maxKVPoints {
		k.width *= 2
		j := 0
		for _, p := range k.pts {
			p.t -= (p.t - k.start) % k.width
			if j > 0 && k.pts[j-1].t == p.t {
				k.pts[j-1].used = max(k.pts[j-1].used, p.used)
				continue
			}
			k.pts[j] = p
			j++
		}
		k.pts = k.pts[:j]
	}
}

// sketch collects one latency: exact values up to exactLimit, then a
// log-bucketed histogram with relative error ≤ sketchAlpha.
type sketch struct {
	vals      []float64
	hist      []int64 // nil while exact
	zeros     int64   // values ≤ 0 once in histogram mode
	n         int64
	sum       float64
	min, max  float64 // percentiles stay within them
	exactHigh int     // for tests; 0 = exactLimit
}

const (
	exactLimit  = 1 << 20
	sketchAlpha = 0.005
	histOffset  = 8192
)

var sketchLogGamma = math.Log((1 + sketchAlpha) / (1 - sketchAlpha))

// sizedReader is an optional traces.Reader capability: Len is how many
// requests the reader yields in all, so that a run sizes its latency
// records once rather than growing them as requests complete.
type sizedReader interface{ Len() int }

// reserve sizes m's latency records for the requests in yields, where in
// says how many.
func (m *metrics) reserve(in traces.Reader) {
	if r, ok := in.(sizedReader); ok {
		for _, s := range []*sketch{&m.queue, &m.ttft, &m.tpot, &m.e2e} {
			s.reserve(r.Len())
		}
	}
}

// reserve makes room for n more values while s keeps them exact.
func (s *sketch) reserve(n int) {
	if s.hist == nil {
		s.vals = slices.Grow(s.vals, max(0, min(n, s.limit()+1-len(s.vals))))
	}
}

// limit is how many values s keeps exact.
func (s *sketch) limit() int {
	if s.exactHigh > 0 {
		return s.exactHigh
	}
	return exactLimit
}

func (s *sketch) add(v float64) {
	s.n++
	s.sum += v
	if s.n == 1 || v > s.max {
		s.max = v
	}
	if s.n == 1 || v < s.min {
		s.min = v
	}
	if s.hist == nil {
		limit := s.limit()
		// Doubling copies each value about once where append's growth
		// by a quarter copied a long run's latencies four times over;
		// past the limit the values move to the histogram.
		if n := len(s.vals); n == cap(s.vals) {
			s.vals = slices.Grow(s.vals, min(max(n, 64), limit+1-n))
		}
		s.vals = append(s.vals, v)
		if len(s.vals) > limit {
			s.hist = make([]int64, 2*histOffset)
			for _, x := range s.vals {
				s.bin(x)
			}
			s.vals = nil
		}
		return
	}
	s.bin(v)
}

// merge adds every value of o to s. The sum is added as a whole, so
// merging one sketch into an empty one reproduces its Dist exactly.
func (s *sketch) merge(o *sketch) {
	if o.n == 0 {
		return
	}
	if s.n == 0 || o.max > s.max {
		s.max = o.max
	}
	if s.n == 0 || o.min < s.min {
		s.min = o.min
	}
	s.n += o.n
	s.sum += o.sum
	if s.hist == nil && o.hist == nil && len(s.vals)+len(o.vals) <= s.limit() {
		s.vals = append(s.vals, o.vals...)
		return
	}
	if s.hist == nil {
		s.hist = make([]int64, 2*histOffset)
		for _, x := range s.vals {
			s.bin(x)
		}
		s.vals = nil
	}
	if o.hist == nil {
		for _, x := range o.vals {
			s.bin(x)
		}
		return
	}
	for i, c := range o.hist {
		s.hist[i] += c
	}
	s.zeros += o.zeros
}

func (s *sketch) bin(v float64) {
	if v <= 0 {
		s.zeros++
		return
	}
	i := int(math.Ceil(math.Log(v)/sketchLogGamma)) + histOffset
	s.hist[min(max(i, 0), len(s.hist)-1)]++
}

func (s *sketch) dist() Dist {
	d := Dist{N: s.n, Max: s.max}
	if s.n == 0 {
		return d
	}
	d.Mean = s.sum / float64(s.n)
	d.P50, d.P90, d.P99 = s.quantile(0.50), s.quantile(0.90), s.quantile(0.99)
	return d
}

// nthSmallest moves the k-th smallest value of v (from 0) to v[k], with
// none larger before it and none smaller after (Hoare's selection). Exact
// quantiles need no sort: selecting them costs a few passes over v where
// sorting 19,366 latencies took a quarter of a simulated run.
func nthSmallest(v []float64, k int) {
	lo, hi := 0, len(v)-1
	for lo < hi {
		p := median3(v[lo], v[lo+(hi-lo)/2], v[hi])
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		// v[lo..j] ≤ p ≤ v[i..hi], and anything between equals p.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

func median3(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	return max(a, min(b, c))
}

// quantile is the nearest-rank p-quantile (the value with rank ⌈p·n⌉).
func (s *sketch) quantile(p float64) float64 {
	rank := max(int64(math.Ceil(p*float64(s.n))), 1)
	if s.hist == nil {
		nthSmallest(s.vals, int(rank-1))
		return s.vals[rank-1]
	}
	// A bucket's midpoint may lie beyond the values seen: keep it within.
	c := s.zeros
	if rank <= c {
		return min(max(0, s.min), s.max)
	}
	g := math.Exp(sketchLogGamma)
	for i, h := range s.hist {
		c += h
		if c >= rank {
			// bucket i holds (γ^(i-1-off), γ^(i-off)]; its midpoint in
			// relative terms is within α of every value in it.
			v := 2 * math.Pow(g, float64(i-histOffset)) / (g + 1)
			return min(max(v, s.min), s.max)
		}
	}
	return s.max
}
