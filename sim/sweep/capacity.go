package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// Trace is a trace held in memory so that every probe of every config
// replays it without file I/O.
type Trace struct {
	Name   string // where it came from, for messages and metadata
	Meta   traces.Meta
	Reqs   []traces.Request // input columns only, in arrival order
	SHA256 string           // hex sha256 over what the simulator reads: every request's input columns, and Meta.BlockSize
	// Span is the first-to-last arrival time in seconds of the rows that
	// are not warm-up; Rate, the gaps between those rows over Span, is
	// the trace's arrival rate at scale 1 (NaN when Span is 0), as `trace
	// stats` gives it.
	Span, Rate float64
	// nAll counts the requests of the SLO's population: not warm-up, and
	// not failed in the source trace (such a row has no lengths to serve:
	// the simulator rejects it under every config, so it says nothing
	// about any).
	nAll int64
	// Chained: some session has two turns sent live (chainedTurns), so
	// session waiting may hold the later one behind the earlier.
	Chained bool
}

// chainedTurns reports whether a session has two of reqs' rows that
// session waiting chains (sim.ChainedTurn).
func chainedTurns(reqs []traces.Request) bool {
	seen := map[string]bool{}
	for i := range reqs {
		r := &reqs[i]
		if !sim.ChainedTurn(r) {
			continue
		}
		if seen[r.SessionID] {
			return true
		}
		seen[r.SessionID] = true
	}
	return false
}

// LoadTrace reads r to the end (it does not close it) and keeps the input
// columns of every request. The trace must be in arrival order.
func LoadTrace(name string, r traces.Reader) (*Trace, error) {
	t := &Trace{Name: name, Meta: r.Meta()}
	h := sha256.New()
	var buf [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	last := int64(math.MinInt64)
	// Warm-up rows are sent but are no part of any statistic, the rate
	// included (traces.StatsBuilder).
	var measured, first, lastMeasured int64
	for r.Next() {
		in := r.At()
		if in.Arrival < last {
			return nil, fmt.Errorf("%s: row %d: arrival %d ns goes back in time (previous %d ns); the simulator needs arrival order", name, len(t.Reqs)+1, in.Arrival, last)
		}
		last = in.Arrival
		q := traces.Request{
			ID: in.ID, Arrival: in.Arrival, PromptTokens: in.PromptTokens, OutputTokens: in.OutputTokens,
			SessionID: in.SessionID, Class: in.Class, Warmup: in.Warmup, SourceFailed: in.SourceFailed,
		}
		if len(in.PrefixHashes) > 0 {
			q.PrefixHashes = append([]uint64(nil), in.PrefixHashes...)
		}
		q.ClearObserved()
		t.Reqs = append(t.Reqs, q)
		if !q.Warmup && !q.SourceFailed {
			t.nAll++
		}
		if !q.Warmup {
			if measured == 0 {
				first = q.Arrival
			}
			lastMeasured = q.Arrival
			measured++
		}
		put(uint64(q.Arrival))
		put(uint64(q.PromptTokens)<<32 | uint64(uint32(q.OutputTokens)))
		flags := uint64(0)
		if q.Warmup {
			flags |= 1
		}
		if q.SourceFailed { // the simulator rejects it
			flags |= 2
		}
		put(flags)
		put(uint64(len(q.PrefixHashes)))
		for _, x := range q.PrefixHashes {
			put(x)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	// The tokens a prefix hash covers decide which KV blocks are shared.
	if bs := t.Meta.BlockSize; bs > 0 {
		put(uint64(bs))
	}
	if t.nAll == 0 {
		return nil, fmt.Errorf("%s: no requests to simulate (every row is warm-up or failed in the source trace)", name)
	}
	t.SHA256 = hex.EncodeToString(h.Sum(nil))
	t.Chained = chainedTurns(t.Reqs)
	t.Span = float64(lastMeasured-first) / 1e9
	t.Rate = math.NaN()
	if t.Span > 0 {
		t.Rate = float64(measured-1) / t.Span
	}
	return t, nil
}

// scaledReader replays a Trace with every arrival divided by scale (scale
// 2 doubles the arrival rate). It allocates nothing per request.
type scaledReader struct {
	t     *Trace
	scale float64
	inv   float64
	i     int
	cur   traces.Request
	err   error
}

func (r *scaledReader) reset(t *Trace, scale float64) {
	r.t, r.scale, r.inv, r.i, r.err = t, scale, 1/scale, 0, nil
}

func (r *scaledReader) Meta() traces.Meta { return r.t.Meta }
func (r *scaledReader) Err() error        { return r.err }
func (r *scaledReader) Close() error      { return nil }
func (r *scaledReader) At() *traces.Request {
	return &r.cur
}

// Len is the trace's request count: sim sizes its latency records by it.
func (r *scaledReader) Len() int { return len(r.t.Reqs) }

func (r *scaledReader) Next() bool {
	if r.i >= len(r.t.Reqs) {
		return false
	}
	src := &r.t.Reqs[r.i]
	a := math.Round(float64(src.Arrival) * r.inv)
	if !(a < math.MaxInt64) { // 2^63: past the simulator's clock
		r.err = fmt.Errorf("arrival-rate scale %g: request %d (id %q) would arrive %.3g s after the trace's start, beyond the simulator's clock (int64 ns, about 292 years)", r.scale, r.i+1, src.ID, a/1e9)
		return false
	}
	r.i++
	r.cur = *src
	r.cur.Arrival = int64(a)
	return true
}

// errAbort stops a probe once its SLO can no longer hold.
var errAbort = errors.New("sweep: SLO can no longer hold")

// sloCounter is the per-request sink of a probe: it counts the requests
// that break each limit and stops the run (when abort is set) as soon as
// the remaining requests can no longer bring the run within the SLO.
//
// A request the simulator rejects counts as breaking every limit; its
// latencies are infinite. Warm-up rows, and rows the source trace marks
// failed (rejected under every config), are not counted at all. P99 ≤ L
// holds exactly when at most n − ⌈0.99·n⌉ of the n requests exceed L
// (nearest rank, like sim.Dist).
type sloCounter struct {
	ttft, tpot, e2e int64   // limits in ns; 0 = not set
	goodMin         float64 // 0 = not set
	nAll, nTPOT     int64   // populations: Trace.nAll's requests, and those with ≥ 2 output tokens
	maxNew          int32   // the plan's max_new_tokens (0 = no cap)
	abort           bool

	vTTFT, vTPOT, vE2E int64 // requests over each limit
	bad, good, goodOut int64 // requests breaking some limit / meeting every one, and the latter's output tokens
	rejected, rejTPOT  int64 // requests the simulator rejected, and those of them with ≥ 2 output tokens
}

func (c *sloCounter) reset(slo SLO, nAll, nTPOT int64, maxNew int32, abort bool) {
	*c = sloCounter{
		ttft: msToNs(slo.TTFTP99Ms), tpot: msToNs(slo.TPOTP99Ms), e2e: msToNs(slo.E2EP99Ms),
		goodMin: slo.GoodputMin, nAll: nAll, nTPOT: nTPOT, maxNew: maxNew, abort: abort,
	}
}

// simOutput is a request's output length as simulated: at least 1, at
// most max_new_tokens.
func simOutput(out, maxNew int32) int32 {
	out = max(out, 1)
	if maxNew > 0 {
		out = min(out, maxNew)
	}
	return out
}

// msToNs converts a limit; one past int64 nanoseconds saturates (a
// converted overflow would read as unset, or negative).
func msToNs(ms float64) int64 {
	ns := math.Round(ms * 1e6)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(ns)
}

// allowed is how many of n values may exceed a limit with P99 within it.
// With no values (no request has the two output tokens TPOT needs) there
// is no P99 to break, and none exceeds the limit.
func allowed(n int64) int64 {
	return n - int64(math.Ceil(0.99*float64(n)))
}

// FewRequestsForP99 warns, when slo limits a P99 and t holds fewer than
// 100 requests in the SLO's population, that each such P99 is then
// their slowest (allowed is 0): one slow request breaks the SLO, so a
// capacity rests on one request. "" otherwise.
func FewRequestsForP99(slo SLO, t *Trace) string {
	if slo.TTFTP99Ms == 0 && slo.TPOTP99Ms == 0 && slo.E2EP99Ms == 0 || allowed(t.nAll) > 0 {
		return ""
	}
	return fmt.Sprintf("the SLO's P99 over the trace's %d requests (warm-up and source-failed rows left out) is their slowest, the nearest rank over fewer than 100: one slow request breaks it", t.nAll)
}

func (c *sloCounter) Write(r *traces.Request) error {
	if r.Warmup || r.SourceFailed {
		return nil
	}
	if r.Error != "" || r.LastToken == traces.Missing {
		// A row an OOM left unserved breaks every limit too, but says
		// nothing about other loads: only rejections do.
		rejected := !strings.HasPrefix(r.Error, sim.NotRunPrefix)
		c.bad++
		c.vTTFT++
		c.vE2E++
		if rejected {
			c.rejected++
		}
		if simOutput(r.OutputTokens, c.maxNew) >= 2 {
			c.vTPOT++
			if rejected {
				c.rejTPOT++
			}
		}
		if !rejected { // the run ends on its OOM: stopping it here would hide that
			return nil
		}
		return c.check()
	}
	ok := true
	// From the issue (ScheduledSend), as the simulator measures them:
	// session waiting keeps a held turn's trace time in Arrival.
	if ttft, _ := r.TTFT(); c.ttft > 0 && ttft > c.ttft {
		c.vTTFT++
		ok = false
	}
	if e2e, _ := r.E2E(); c.e2e > 0 && e2e > c.e2e {
		c.vE2E++
		ok = false
	}
	// d > tpot·(n−1), without the product that a lenient limit overflows
	if n, d := int64(r.UsageOutput), r.LastToken-r.FirstToken; c.tpot > 0 && n >= 2 && d > 0 && (d-1)/(n-1) >= c.tpot {
		c.vTPOT++
		ok = false
	}
	if !ok {
		c.bad++
		return c.check()
	}
	c.good++
	c.goodOut += int64(r.UsageOutput)
	return nil
}

func (c *sloCounter) Close() error { return nil }
func (c *sloCounter) Abort()       {}

// failed reports whether the SLO fails given the requests seen so far,
// whatever the rest do.
func (c *sloCounter) failed() bool {
	switch {
	case c.ttft > 0 && c.vTTFT > allowed(c.nAll):
		return true
	case c.e2e > 0 && c.vE2E > allowed(c.nAll):
		return true
	case c.tpot > 0 && c.vTPOT > allowed(c.nTPOT):
		return true
	case c.goodMin > 0 && c.fraction() < c.goodMin:
		return true
	}
	return false
}

// rejectionsFail reports whether the rejected requests alone break the
// SLO. The simulator rejects a request that can never run under the
// config (prompt + output over max_model_len, too large for the KV cache,
// or for the token budget without chunked prefill) whatever the load, so
// then no scale meets the SLO.
func (c *sloCounter) rejectionsFail() bool {
	r := sloCounter{ttft: c.ttft, tpot: c.tpot, e2e: c.e2e, goodMin: c.goodMin, nAll: c.nAll, nTPOT: c.nTPOT,
		vTTFT: c.rejected, vE2E: c.rejected, vTPOT: c.rejTPOT, bad: c.rejected}
	return c.rejected > 0 && r.failed()
}

// fraction is the share of requests that met every limit, counting the
// ones not yet seen as meeting them.
func (c *sloCounter) fraction() float64 { return float64(c.nAll-c.bad) / float64(c.nAll) }

func (c *sloCounter) check() error {
	if c.abort && c.failed() {
		return errAbort
	}
	return nil
}

// probe is one simulation of a config at one arrival-rate scale.
type probe struct {
	scale    float64
	ok       bool                // every SLO held (only for complete runs)
	hopeless int64               // > 0: this many rejected requests alone break the SLO at any scale
	sum      *sim.Summary        // nil when aborted
	cost     model.CostBreakdown // of the run, both bases
	oom      string              // the run stopped: a static batch did not fit
	good     int64               // requests meeting every limit
	goodOut  int64               // their output tokens
	nAll     int64
}

// complete reports whether the probe ran to the end, so its metrics
// describe the whole trace.
func (p *probe) complete() bool { return p.sum != nil && p.oom == "" }

// evaluator runs the probes of one config; a worker reuses it.
type evaluator struct {
	t      *Trace
	spec   *Spec
	cfg    *Config
	step   sim.StepTimer         // nil: each config's roofline prior
	power  func(float64) float64 // nil: each config's catalog power model
	wait   *sim.SessionWait      // nil: every row at its (scaled) arrival
	nTPOT  int64
	rd     scaledReader
	cnt    sloCounter
	cache  map[float64]*probe // complete runs by scale
	probes int
	// climbed: the search went on above start_scale after failing down
	// to min_scale, so an infeasible row's failures reach max_scale
	climbed bool
	// climbFailed: the scale below the first one that held above
	// start_scale, where the SLO failed (0: none); the row's note names it
	// with the load curve's failures below the capacity
	climbFailed float64
	// outOfProbes: the search for a scale that holds stopped at
	// search.max_probes short of min_scale (or, climbing, of max_scale)
	outOfProbes bool
	gate        staticGate // the static-batch gates' scan of the trace
}

func (ev *evaluator) reset(t *Trace, s *Spec, c *Config) {
	ev.t, ev.spec, ev.cfg, ev.probes, ev.climbed, ev.climbFailed, ev.outOfProbes = t, s, c, 0, false, 0, false
	ev.gate = staticGate{admitted: ev.gate.admitted[:0]}
	clear(ev.cache)
	if ev.cache == nil {
		ev.cache = map[float64]*probe{}
	}
	// TPOT counts requests with at least two output tokens as simulated:
	// lengths below 1 run as 1 and max_new_tokens caps them.
	ev.nTPOT = 0
	for i := range t.Reqs {
		r := &t.Reqs[i]
		if !r.Warmup && !r.SourceFailed && simOutput(r.OutputTokens, int32(c.Plan.Model.MaxNewTokens)) >= 2 {
			ev.nTPOT++
		}
	}
}

// run simulates the config at scale. With abort it stops as soon as the
// SLO cannot hold (the probe then has no metrics).
func (ev *evaluator) run(ctx context.Context, scale float64, abort bool) (*probe, error) {
	if p, ok := ev.cache[scale]; ok {
		return p, nil
	}
	ev.probes++
	ev.rd.reset(ev.t, scale)
	ev.cnt.reset(ev.spec.SLO, ev.t.nAll, ev.nTPOT, int32(ev.cfg.Plan.Model.MaxNewTokens), abort)
	sum, err := ev.simulate(ctx)
	p := &probe{scale: scale, nAll: ev.t.nAll}
	if ev.cnt.rejectionsFail() {
		p.hopeless = ev.cnt.rejected
	}
	var oom *sim.OOMError
	switch {
	case errors.Is(err, errAbort):
		// The rows an OOM ended the run with may be what broke the SLO:
		// the run stopped on the OOM all the same.
		if sum != nil && sum.OOM != nil {
			p.oom = (&sim.OOMError{Report: *sum.OOM}).Error()
		}
		return p, nil
	case errors.As(err, &oom):
		p.oom = oom.Error()
		return p, nil
	case err != nil:
		return nil, err
	}
	r := ev.cfg.Resolved
	p.sum, p.good, p.goodOut = sum, ev.cnt.good, ev.cnt.goodOut
	p.cost = r.Prices.Cost(model.Usage{
		Devices: r.Plan.Devices(), WallSeconds: sum.Makespan, EnergyJoules: sum.EnergyJoules,
		InputTokens: sum.InputTokens, OutputTokens: sum.OutputTokens,
	})
	p.ok = !ev.cnt.failed()
	ev.cache[scale] = p
	return p, nil
}

// errHopeless ends a capacity search: requests the config can never run
// break the SLO at any scale.
type errHopeless struct {
	rejected int64
	partial  bool // the probe stopped early: more may be rejected
}

func (e errHopeless) Error() string {
	n := fmt.Sprint(e.rejected)
	if e.partial {
		n = "at least " + n
	}
	return fmt.Sprintf("%s requests can never run under this config (rejected: over max_model_len, or too large for its KV cache or token budget), so the SLO fails at every scale", n)
}

// simulate runs the trace through the config: one replica with sim.Run,
// or sim.RunSessionWait holding sessions' turns, a [cluster] of several
// replicas or a length split with sim.RunCluster.
func (ev *evaluator) simulate(ctx context.Context) (*sim.Summary, error) {
	r, opt := ev.cfg.Resolved, plan.Options{Step: ev.step, Power: ev.power}
	if ev.wait != nil { // Run refuses a cluster with it
		return sim.RunSessionWait(ctx, r.SimConfig(opt), *ev.wait, &ev.rd, &ev.cnt)
	}
	if !r.Plan.Clustered() {
		return sim.Run(ctx, r.SimConfig(opt), &ev.rd, &ev.cnt)
	}
	cs, err := sim.RunCluster(ctx, r.ClusterConfig(opt), &ev.rd, &ev.cnt)
	if cs == nil {
		return nil, err
	}
	return &cs.Summary, err
}

// capacityAtLeast opens the note of a capacity the search never saw the
// SLO break above: the scale is a lower bound (see Row.CapacityLowerBound).
const capacityAtLeast = "capacity ≥ "

// capacity finds the highest arrival-rate scale at which every SLO holds:
// starting at Search.StartScale it doubles the scale until the SLO fails
// (or halves it until it holds), then bisects the bracket geometrically
// until hi/lo − 1 ≤ Search.Tolerance (or no number lies between them). It
// returns the probe at the highest scale that held (nil: none) and a note
// when the search stopped short of that: at MaxScale, or when MaxProbes
// ran out; with nil, the note names an OOM at the lowest scale probed. It
// assumes the SLO, once broken, stays broken at higher scales, save where
// a static batch's wait with its prefill reaches a limit (batchWaitLimit): a config failing
// down to MinScale is then tried above the start scale too (climb).
func (ev *evaluator) capacity(ctx context.Context) (best *probe, note string, err error) {
	s := ev.spec.Search
	var lo, hi *probe
	probe := func(scale float64) (*probe, error) {
		p, err := ev.run(ctx, scale, true)
		if err == nil && !p.ok && p.hopeless > 0 {
			err = errHopeless{p.hopeless, !p.complete()}
		}
		return p, err
	}
	p, err := probe(s.StartScale)
	if err != nil {
		return nil, "", err
	}
	if p.ok {
		lo = p
	} else {
		hi = p
		for lo == nil {
			ev.outOfProbes = hi.scale > s.MinScale && ev.probes >= s.MaxProbes
			if hi.scale <= s.MinScale || ev.outOfProbes {
				// Out of memory, not over a limit: say so, as a fixed
				// rate_scale's row does.
				if hi.oom != "" {
					return nil, fmt.Sprintf("at scale %g: %s", hi.scale, hi.oom), nil
				}
				break
			}
			if p, err = probe(max(hi.scale/2, s.MinScale)); err != nil {
				return nil, "", err
			}
			if p.ok {
				lo = p
			} else {
				hi = p
			}
		}
		if lo == nil {
			if lo, note, err = ev.climb(probe); lo == nil || err != nil {
				return nil, note, err
			}
			hi = nil
		}
	}
	for hi == nil {
		if lo.scale >= s.MaxScale {
			return lo, joinNote(fmt.Sprintf("%ssearch.max_scale %g", capacityAtLeast, s.MaxScale), note), nil
		}
		if ev.probes >= s.MaxProbes {
			return lo, joinNote(fmt.Sprintf("%sscale %.4g: search.max_probes = %d ran out before the SLO broke", capacityAtLeast, lo.scale, s.MaxProbes), note), nil
		}
		if p, err = probe(min(lo.scale*2, s.MaxScale)); err != nil {
			return nil, "", err
		}
		if p.ok {
			lo = p
		} else {
			hi = p
		}
	}
	for hi.scale/lo.scale-1 > s.Tolerance && ev.probes < s.MaxProbes {
		mid := math.Sqrt(lo.scale * hi.scale)
		if !(mid > lo.scale && mid < hi.scale) { // the ends are adjacent numbers
			break
		}
		if p, err = probe(mid); err != nil {
			return nil, "", err
		}
		if p.ok {
			lo = p
		} else {
			hi = p
		}
	}
	if hi.scale/lo.scale-1 > s.Tolerance && ev.probes >= s.MaxProbes {
		return lo, joinNote(fmt.Sprintf("capacity between scales %.4g and %.4g: search.max_probes = %d ran out before search.tolerance", lo.scale, hi.scale, s.MaxProbes), note), nil
	}
	return lo, note, nil
}

// climb doubles the scale from above the start scale while the SLO fails,
// for a config whose static batches wait to fill at light load: the
// capacity is the highest scale at which the SLO holds, whichever lighter
// loads break it. It returns the first probe that held, the scale below it
// that failed kept in ev.climbFailed; nil when the wait cannot explain the
// failures (or the trace's last batch alone breaks the SLO), or no scale
// up to MaxScale held within MaxProbes, with a note naming the loads that
// ran out of KV memory (a batch that fills at heavy load may not fit).
func (ev *evaluator) climb(probe func(float64) (*probe, error)) (*probe, string, error) {
	s := ev.spec.Search
	if name, limit := ev.batchWaitLimit(); limit == 0 || ev.lastBatchNote(name, limit) != "" {
		return nil, "", nil
	}
	ev.climbed = true
	var oomAt []string // scales out of KV memory
	var oomFirst string
	failed := s.StartScale
	for failed < s.MaxScale && ev.probes < s.MaxProbes {
		p, err := probe(min(failed*2, s.MaxScale))
		if err != nil {
			return nil, "", err
		}
		if p.ok {
			ev.climbFailed = failed
			return p, "", nil
		}
		if p.oom != "" {
			if oomFirst == "" {
				oomFirst = p.oom
			}
			oomAt = append(oomAt, formatValue(p.scale))
		}
		failed = p.scale
	}
	ev.outOfProbes = failed < s.MaxScale
	if len(oomAt) == 0 {
		return nil, "", nil
	}
	return nil, fmt.Sprintf("out of KV memory at scale %s (at scale %s: %s)", strings.Join(oomAt, ", "), oomAt[0], oomFirst), nil
}
