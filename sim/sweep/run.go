package sweep

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// Options are the run settings of a sweep that are not in the spec.
type Options struct {
	Workers int   // parallel simulations; 0 = GOMAXPROCS
	Shard   Shard // which configs to run; zero = all
	// Progress, when not nil, is called after each config finishes with the
	// number done and the number to do, from one goroutine at a time.
	Progress func(done, total int)
	// Settings are recorded in Meta.Settings: every knob outside the spec
	// that changes results (a catalog file, a profile, overridden
	// thresholds).
	Settings string
	// Step replaces every config's roofline prior, e.g. with a calibrated
	// profile's model; nil keeps the prior.
	Step sim.StepTimer
	// Power replaces every config's catalog power model (watts per device
	// at a utilization), e.g. with a calibrated profile's fit; nil keeps
	// the catalog's.
	Power func(utilization float64) float64
	// SessionWait, when not nil, holds a row with a session_id until the
	// previous row of its session has ended (sim.RunSessionWait), as a
	// live replay with session waiting sends it; nil takes every row at
	// its arrival. The hold applies after the arrival-rate scaling. It
	// simulates one replica: a [cluster] config is refused.
	SessionWait *sim.SessionWait
}

// Run evaluates every config of ex in the shard over the trace t: for each,
// the SLO capacity (or the fixed rate_scale), the metrics there, the load
// curve, the knee and the tail penalty. Rows come back by Index whatever
// the order the workers finished in, ranked within the shard; skipped
// configs have a row too. The same inputs give the same Results.
func Run(ctx context.Context, s *Spec, ex *Expansion, t *Trace, opt Options) (*Results, error) {
	shard := opt.Shard.norm()
	res := &Results{Meta: Meta{
		SpecName: filepath.Base(s.Path), Spec: s.Text, SpecSHA256: s.SHA256,
		TraceName: t.Name, TraceSHA256: t.SHA256, TraceChecksums: t.Meta.Clone().Checksums,
		TraceWorkload: traces.Workload(t.Meta), TraceRequests: len(t.Reqs),
		Settings: opt.Settings, Shard: shard, TotalConfigs: len(ex.Configs),
	}}
	var todo []int // positions in res.Rows to simulate
	for i := range ex.Configs {
		c := &ex.Configs[i]
		if !shard.Contains(c.Index) {
			continue
		}
		res.Rows = append(res.Rows, configRow(c))
		if c.Skip == "" {
			todo = append(todo, len(res.Rows)-1)
		}
	}
	byIndex := make(map[int64]*Config, len(res.Rows))
	for i := range ex.Configs {
		byIndex[int64(ex.Configs[i].Index)] = &ex.Configs[i]
	}
	if opt.SessionWait != nil {
		if err := checkSessionWait(s, ex); err != nil {
			return nil, err
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(todo)))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		mu       sync.Mutex
		done     int
		firstErr error
		wg       sync.WaitGroup
	)
	if opt.Progress != nil {
		opt.Progress(0, len(todo))
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev := evaluator{step: opt.Step, power: opt.Power, wait: opt.SessionWait}
			for {
				k := int(next.Add(1) - 1)
				if k >= len(todo) || ctx.Err() != nil {
					return
				}
				row := &res.Rows[todo[k]]
				ev.reset(t, s, byIndex[row.Index])
				err := ev.evaluate(ctx, row)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				done++
				if opt.Progress != nil && err == nil {
					opt.Progress(done, len(todo))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	Rank(res.Rows)
	return res, nil
}

// ErrSessionWaitCluster is Run's refusal of Options.SessionWait over a
// spec with a [cluster] config, which the caller's settings asked for.
var ErrSessionWaitCluster = errors.New("session waiting simulates one replica; it is not supported with a cluster plan")

// checkSessionWait refuses session waiting over a spec with a config it
// would run on a [cluster]: sim.RunSessionWait simulates one replica.
func checkSessionWait(s *Spec, ex *Expansion) error {
	for i := range ex.Configs {
		c := &ex.Configs[i]
		if c.Skip == "" && c.Resolved != nil && c.Plan.Clustered() {
			return fmt.Errorf("%s: config %d (%s): [cluster] %s: %w",
				s.Path, c.Index, c.Label, c.Plan.ClusterLabel(), ErrSessionWaitCluster)
		}
	}
	return nil
}

// configRow fills the config columns of c's row.
func configRow(c *Config) Row {
	p := c.Plan
	b := p.Batch
	r := Row{
		Index: int64(c.Index), Label: c.Label, PlanTOML: c.PlanTOML,
		Model: p.Model.Name, Precision: precisionName(p), MaxNewTokens: int64(p.Model.MaxNewTokens),
		Strategy: b.Strategy, MaxWaitMs: math.NaN(), PrefixCaching: b.PrefixCaching,
		Device: p.Device.Model, DeviceCount: int64(p.Device.Count), Replicas: int64(c.Replicas),
		GPUMemoryUtilization: p.Device.GPUMemoryUtilization, MaxModelLen: int64(p.Device.MaxModelLen), BlockSize: int64(p.Device.BlockSize),
		RateScale: math.NaN(),
	}
	switch b.Strategy {
	case "fixed":
		r.BatchSize, r.MaxWaitMs = int64(b.BatchSize), b.MaxWaitMS
	case "token_budget":
		r.MaxTokenBudget, r.MaxWaitMs = int64(b.MaxTokenBudget), b.MaxWaitMS
	case "continuous":
		r.MaxNumSeqs, r.MaxNumBatchedTokens, r.ChunkedPrefill = int64(b.MaxNumSeqs), int64(b.MaxNumBatchedTokens), b.ChunkedPrefill
	}
	if cl := p.Cluster; cl != nil {
		r.Router = cl.Router
		if p.Split() {
			r.SplitTokens, r.LongReplicas, r.SplitOnPrompt = int64(cl.SplitTokens), int64(cl.LongReplicas), cl.SplitOnPrompt
		}
	}
	if c.RateScale > 0 {
		r.RateScale = c.RateScale
	}
	for _, f := range []*float64{&r.Scale, &r.ArrivalRate, &r.GoodputFraction, &r.GoodputReqPerSec, &r.GoodputOutTokPerSec,
		&r.GoodputOutTokPerSecPerDevice, &r.ReqPerSec, &r.OutTokPerSec, &r.TTFTP50, &r.TTFTP99, &r.TPOTMean, &r.TPOTP99,
		&r.E2EP99, &r.DeviceSeconds, &r.USDPerMOutEst, &r.USDPerMTotalEst, &r.USDPerMOutBilled,
		&r.SatScale, &r.SatOutTokPerSec, &r.SatUSDPerMOut, &r.TailPenalty, &r.KneeScale} {
		*f = math.NaN()
	}
	if c.Skip != "" {
		r.Outcome, r.SkipReason, r.Note = OutcomeSkipped, c.Skip, c.SkipDetail
	} else {
		r.KVBlocks = int64(c.Resolved.Capacity.KVBlocks)
	}
	return r
}

// evaluate fills row with the config's results. A simulator error is the
// row's outcome; only cancellation is returned.
func (ev *evaluator) evaluate(ctx context.Context, row *Row) error {
	err := ev.evaluateRow(ctx, row)
	row.Probes = int64(ev.probes)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// An error row is not ranked, whatever ran before the error.
		row.Outcome, row.Note, row.SLOMet = OutcomeError, err.Error(), false
	}
	return nil
}

func (ev *evaluator) evaluateRow(ctx context.Context, row *Row) error {
	var at *probe
	searched := ev.cfg.RateScale <= 0 // the capacity, not a fixed rate_scale
	if rs := ev.cfg.RateScale; rs > 0 {
		p, err := ev.run(ctx, rs, false)
		if err != nil {
			return err
		}
		row.Outcome = OutcomeSLOViolated
		if p.ok {
			row.Outcome = OutcomeOK
		}
		if !p.complete() {
			row.Note = p.oom
			row.Scale = rs
			return nil
		}
		at = p
	} else {
		p, note, err := ev.capacity(ctx)
		var hopeless errHopeless
		if errors.As(err, &hopeless) {
			row.Outcome, row.Note = OutcomeInfeasible, hopeless.Error()
			return nil
		}
		if err != nil {
			return err
		}
		if p == nil {
			row.Outcome = OutcomeInfeasible
			row.Note = fmt.Sprintf("the SLO fails at every probed scale down to %g", ev.spec.Search.MinScale)
			if ev.climbed {
				row.Note = fmt.Sprintf("the SLO fails at every probed scale from search.max_scale %g down to %g", ev.spec.Search.MaxScale, ev.spec.Search.MinScale)
			}
			if ev.outOfProbes {
				row.Note = fmt.Sprintf("no scale met the SLO within search.max_probes = %d", ev.spec.Search.MaxProbes)
			}
			if note != "" {
				row.Note = joinNote(row.Note, note)
			}
			// an OOM at min_scale is the whole story; one above start_scale
			// leaves the lighter loads' wait to explain
			if wait := ev.batchWaitNote(); wait != "" && (note == "" || ev.climbed) {
				row.Note = joinNote(row.Note, wait)
			}
			return nil
		}
		row.Outcome, row.Note = OutcomeOK, note
		if wait := ev.batchWaitNote(); wait != "" {
			row.Note = joinNote(row.Note, wait)
		}
		at = p
	}
	ev.fill(row, at)

	// The load curve around the evaluated scale. A run that fails is a
	// finding about its load point, not about the config: the metrics at
	// the evaluated scale stand, and the note names the point.
	var curve []CurvePoint
	var failBelow []float64 // complete runs below the capacity that broke the SLO
	var oomAt []string      // runs a static batch ended out of KV memory
	var oomFirst string     // the first of those runs' OOM report
	probed := ev.curveScales(at.scale)
	for _, scale := range probed {
		p, err := ev.run(ctx, scale, false)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			row.Note = joinNote(row.Note, fmt.Sprintf("load curve at scale %g: %v", scale, err))
			continue
		}
		if !p.complete() {
			if oomFirst == "" {
				oomFirst = p.oom
			}
			oomAt = append(oomAt, formatValue(scale))
			continue
		}
		if searched && !p.ok && scale < at.scale {
			failBelow = append(failBelow, scale)
		}
		s := p.sum
		curve = append(curve, CurvePoint{
			Scale: p.scale, ReqPerSec: s.ReqPerSec, OutTokPerSec: s.OutputTokPerSec,
			TTFTP99: distP99(s.TTFT.N, s.TTFT.P99), E2EP99: distP99(s.E2E.N, s.E2E.P99),
			USDPerMOut: perM(p.cost.PerMOutputUSD, s.OutputTokens),
		})
	}
	row.Curve = curve
	if len(oomAt) > 0 {
		// Left off the curve like a failed run, and named as one is: a
		// curve that stops short would otherwise read as complete.
		row.Note = joinNote(row.Note, fmt.Sprintf("load curve at scale %s left off: out of KV memory (at scale %s: %s)", strings.Join(oomAt, ", "), oomAt[0], oomFirst))
	}
	if f := ev.climbFailed; f > 0 && !slices.Contains(failBelow, f) {
		// seen by the search above start_scale, below the curve's reach
		failBelow = append(failBelow, f)
		slices.Sort(failBelow)
	}
	if len(failBelow) > 0 {
		// The search assumes the SLO, once broken, stays broken at higher
		// scales: a lighter load that breaks it (a batch waiting to fill)
		// makes the capacity no guarantee below it.
		row.Note = joinNote(row.Note, ev.prefillWaitNote())
		row.Note = joinNote(row.Note, fmt.Sprintf("the SLO fails at scale %s below the capacity: it does not hold at every lighter load", joinScales(failBelow)))
	}
	if i := Saturation(curve); i >= 0 {
		sp := curve[i]
		row.SatScale, row.SatOutTokPerSec, row.SatUSDPerMOut = sp.Scale, sp.OutTokPerSec, sp.USDPerMOut
		row.TailPenalty = model.TailPenalty(row.USDPerMOutEst, sp.USDPerMOut)
	}
	row.KneeScale = Knee(curve, ev.spec.Search.KneeThroughputPct, ev.spec.Search.KneeP99Pct)
	if gap := kneeGapNote(curve, probed); gap != "" {
		row.Note = joinNote(row.Note, gap)
	}
	return nil
}

// batchWaitLimit names the latency limit a static batch's max_wait_ms
// reaches, alone or else with the batch's prefill (limit 0: none): its
// batches wait to fill at light load, so a lighter load may break an SLO
// that a heavier one meets. A batch of one (a fixed batch_size 1, or a
// token budget with room for a single request) is full as soon as a
// request waits, so it never waits.
func (ev *evaluator) batchWaitLimit() (name string, limit float64) {
	b, slo := ev.cfg.Plan.Batch, ev.spec.SLO
	if !ev.batchWaits() {
		return "", 0
	}
	// A limit the wait alone reaches first: its note names the wait on
	// every row, and the trace's last batch is judged against it.
	if name, limit := waitReaches(b.MaxWaitMS, slo); limit > 0 {
		return name, limit
	}
	if slo.TTFTP99Ms <= 0 && slo.E2EP99Ms <= 0 {
		return "", 0
	}
	return waitReaches(b.MaxWaitMS+ev.batchPrefillMs(), slo)
}

// batchWaits reports whether the config's batches can wait to fill: a
// static batch with room for two requests or more.
func (ev *evaluator) batchWaits() bool {
	b := ev.cfg.Plan.Batch
	switch b.Strategy {
	case "fixed":
		return b.BatchSize > 1
	case "token_budget":
		sc := ev.cfg.Resolved.SimConfig(plan.Options{})
		return int64(b.MaxTokenBudget) >= 2*sim.LeastReserved(&sc)
	}
	return false
}

// waitReaches names the first latency limit, TTFT then E2E, that a wait
// of ms reaches (limit 0: none).
func waitReaches(ms float64, slo SLO) (name string, limit float64) {
	if slo.TTFTP99Ms > 0 && ms >= slo.TTFTP99Ms {
		return "TTFT", slo.TTFTP99Ms
	}
	if slo.E2EP99Ms > 0 && ms >= slo.E2EP99Ms {
		return "E2E", slo.E2EP99Ms
	}
	return "", 0
}

// batchPrefillMs bounds the prefill step of a static batch from above: a
// full batch of the batch_size longest prompts of the trace the config
// admits (a token budget's worth of prompt tokens for token_budget), its
// prompts' KV resident as the step writes it. A request that waited
// max_wait_ms gets its first token only after that step. Computed once per
// config: every gate of its row asks for it.
func (ev *evaluator) batchPrefillMs() float64 {
	g := ev.staticGate()
	if !g.prefillDone {
		g.prefillMs, g.prefillDone = ev.prefillBoundMs(g.admitted), true
	}
	return g.prefillMs
}

// prefillBoundMs is batchPrefillMs over the admitted requests.
func (ev *evaluator) prefillBoundMs(admitted []*traces.Request) float64 {
	prompts := make([]float64, 0, len(admitted))
	for _, r := range admitted {
		prompts = append(prompts, float64(r.PromptTokens))
	}
	slices.SortFunc(prompts, func(a, b float64) int { return cmp.Compare(b, a) })
	step := ev.cfg.Resolved.SimConfig(plan.Options{Step: ev.step, Power: ev.power}).Step
	b := ev.cfg.Plan.Batch
	if b.Strategy == "token_budget" {
		// Σ p² ≤ (Σ p)·longest for the attention over each prompt.
		tokens, longest := float64(b.MaxTokenBudget), 0.0
		if len(prompts) > 0 {
			longest = prompts[0]
		}
		return 1e3 * step.StepSeconds(sim.Batch{PrefillTokens: tokens, PrefillAttn: tokens * longest, Resident: tokens})
	}
	var tokens, attn float64
	for _, p := range prompts[:min(b.BatchSize, len(prompts))] {
		tokens += p
		attn += p * p
	}
	return 1e3 * step.StepSeconds(sim.Batch{PrefillTokens: tokens, PrefillAttn: attn, Resident: tokens})
}

// batchWaitNote says why a static config's SLO may fail at loads lighter
// than where it holds, in the same words for an ok row and an infeasible
// one: its max_wait_ms alone reaches a latency limit (or, where the
// trace's last batch alone breaks it, that no heavier load meets the SLO; see
// lastBatchNote). "" when the wait cannot break a limit, or reaches it
// only with the prefill bound (see prefillWaitNote).
func (ev *evaluator) batchWaitNote() string {
	name, limit := ev.batchWaitLimit()
	if limit == 0 {
		return ""
	}
	if last := ev.lastBatchNote(name, limit); last != "" {
		return last
	}
	if ev.cfg.Plan.Batch.MaxWaitMS < limit {
		return ""
	}
	return fmt.Sprintf("batch.max_wait_ms %g ≥ the %s limit of %g ms: a batch waiting to fill breaks it at light load",
		ev.cfg.Plan.Batch.MaxWaitMS, name, limit)
}

// prefillWaitNote names a max_wait_ms under the limit that the batch's
// prefill bound takes to it, for a row where a lighter load was seen to
// break the SLO: the bound is generous, so most static configs reach it,
// and the note would say nothing on the rest. "" where batchWaitNote
// speaks instead.
func (ev *evaluator) prefillWaitNote() string {
	name, limit := ev.batchWaitLimit()
	wait := ev.cfg.Plan.Batch.MaxWaitMS
	if limit == 0 || wait >= limit || ev.lastBatchNote(name, limit) != "" {
		return ""
	}
	return fmt.Sprintf("batch.max_wait_ms %g with the batch's prefill can reach the %s limit of %g ms: a batch waiting to fill breaks it at light load",
		wait, name, limit)
}

// lastBatchNote says when a static batch's wait breaks the named limit at
// every load from start_scale up: the trace's last batch never fills, so
// it starts once its first request (of those admitted, less full
// batches: lastBatchLen) has waited max_wait_ms; a later one waits less by the gap
// since that arrival, a gap that a heavier load shrinks, and breaks the
// limit for sure only while that gap is within max_wait_ms less the limit
// (lastBatchLate). When those and the requests refused on arrival (which
// break every limit) outnumber the requests a P99 lets break the limit,
// no heavier load meets the SLO; where no last-batch request is late, the
// note names the refusals alone, as it does where session waiting holds
// turns (holdsTurns). "" when they do not, or for a cluster, whose
// replicas' last batches depend on the router.
func (ev *evaluator) lastBatchNote(name string, limit float64) string {
	b := ev.cfg.Plan.Batch
	if !ev.batchWaits() || ev.cfg.Plan.Clustered() {
		return ""
	}
	admitted, refused := ev.admitted()
	left, ok := ev.lastBatchLen(admitted), allowed(ev.t.nAll)
	var late int64
	if !ev.holdsTurns() {
		late = ev.lastBatchLate(admitted[len(admitted)-left:], b.MaxWaitMS-limit)
	}
	if late+refused <= ok {
		return ""
	}
	if late == 0 { // whole batches, or a last batch no load makes late
		return fmt.Sprintf("the %d requests refused on arrival break the %s limit of %g ms at every load, more than the %d a P99 lets break it, so no heavier load meets the SLO",
			refused, name, limit, ok)
	}
	with := ","
	if refused > 0 {
		with = fmt.Sprintf("; with the %d refused on arrival, %d requests,", refused, late+refused)
	}
	fill := fmt.Sprintf("%d admitted mod batch.batch_size %d", len(admitted), b.BatchSize)
	if b.Strategy == "token_budget" {
		fill = fmt.Sprintf("left when %d admitted fill batch.max_token_budget %d", len(admitted), b.MaxTokenBudget)
	}
	return fmt.Sprintf("the trace's last %d requests (%s) never fill a batch: it starts once the first of them has waited batch.max_wait_ms %g ≥ the %s limit of %g ms, and %d of them arrive within %g ms of it at search.start_scale %g and above%s more than the %d requests a P99 lets break it, so no heavier load meets the SLO",
		left, fill, b.MaxWaitMS, name, limit, late, b.MaxWaitMS-limit, ev.spec.Search.StartScale, with, ok)
}

// holdsTurns reports whether session waiting may hold any of the trace's
// rows (Trace.Chained): held turns are sent at their previous turn's end,
// so the last batch's members and gaps no longer follow from the
// arrivals, while refusals on arrival still break every limit.
func (ev *evaluator) holdsTurns() bool {
	return ev.wait != nil && ev.t.Chained
}

// lastBatchLen is how many of the admitted requests the trace's last
// batch holds once every batch before it is full: what whole batches of
// batch_size leave, or for token_budget what is left after full batches
// take the requests in turn by the simulator's rule (sim.TokenBudgetTake).
// 0 when the last batch is full too.
func (ev *evaluator) lastBatchLen(admitted []*traces.Request) int {
	b := ev.cfg.Plan.Batch
	if b.Strategy != "token_budget" {
		return len(admitted) % b.BatchSize
	}
	sc := ev.cfg.Resolved.SimConfig(plan.Options{})
	budget, least := int64(b.MaxTokenBudget), sim.LeastReserved(&sc)
	rest := admitted
	reserved := func(i int) int64 { return sc.Reserved(rest[i]) }
	for len(rest) > 0 {
		take, full := sim.TokenBudgetTake(len(rest), reserved, budget, least)
		if !full {
			return len(rest)
		}
		// A request over the budget alone, which the simulator refuses
		// on arrival, still moves the split on.
		rest = rest[max(take, 1):]
	}
	return 0
}

// lastBatchLate counts the SLO's requests among the last batch's (the
// trace's last admitted ones, in arrival order) that wait at least the
// limit at every scale from start_scale up: the first one, and those
// arriving within margin ms (max_wait_ms less the limit) of it at
// start_scale, a gap that heavier loads only shrink. Their first token
// comes later still.
func (ev *evaluator) lastBatchLate(batch []*traces.Request, margin float64) (late int64) {
	if len(batch) == 0 {
		return 0
	}
	first := batch[0].Arrival
	window := margin * 1e6 * ev.spec.Search.StartScale // ns at scale 1
	for _, r := range batch {
		if !r.Warmup && !r.SourceFailed && float64(r.Arrival-first) <= window {
			late++
		}
	}
	return late
}

// admitted returns, in arrival order, the trace's requests a single
// replica of the config admits (warm-up ones too: they fill batches), and
// counts those of the SLO's population it refuses on arrival, by the
// simulator's own rule.
func (ev *evaluator) admitted() (admitted []*traces.Request, refused int64) {
	g := ev.staticGate()
	return g.admitted, g.refused
}

// staticGate is what the static-batch gates of a row read from the trace
// under its config, scanned once per config (reset clears it).
type staticGate struct {
	admitted    []*traces.Request
	refused     int64
	prefillMs   float64
	prefillDone bool
	scanned     bool
}

// staticGate scans the trace with the config's rejecter on first use.
func (ev *evaluator) staticGate() *staticGate {
	g := &ev.gate
	if g.scanned {
		return g
	}
	sc := ev.cfg.Resolved.SimConfig(plan.Options{})
	refuses := sc.Rejecter()
	for i := range ev.t.Reqs {
		r := &ev.t.Reqs[i]
		switch {
		case refuses(r) == "":
			g.admitted = append(g.admitted, r)
		case !r.Warmup && !r.SourceFailed:
			g.refused++
		}
	}
	g.scanned = true
	return g
}

// joinScales writes scales as a note lists them.
func joinScales(scales []float64) string {
	out := make([]string, len(scales))
	for i, v := range scales {
		out[i] = formatValue(v)
	}
	return strings.Join(out, ", ")
}

// joinNote appends more to a row's note; an empty more adds nothing.
func joinNote(note, more string) string {
	if note == "" || more == "" {
		return note + more
	}
	return note + "; " + more
}

// curveScales returns, increasing, c and every grid scale StartScale·2^j
// within [c/2^CurveBelow, c·2^CurveAbove].
func (ev *evaluator) curveScales(c float64) []float64 {
	s := ev.spec.Search
	lo, hi := math.Ldexp(c, -s.CurveBelow), math.Ldexp(c, s.CurveAbove)
	out := []float64{c}
	for j := int(math.Floor(math.Log2(lo/s.StartScale))) - 1; ; j++ {
		g := math.Ldexp(s.StartScale, j)
		if g > hi {
			break
		}
		if g >= lo && g != c {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}

func distP99(n int64, p99 float64) float64 {
	if n == 0 {
		return math.NaN()
	}
	return p99
}

func perM(usd float64, tokens int64) float64 {
	if tokens <= 0 {
		return math.NaN()
	}
	return usd
}

// fill sets the metric columns from a complete probe.
func (ev *evaluator) fill(row *Row, p *probe) {
	s, c := p.sum, p.cost
	row.Scale = p.scale
	row.ArrivalRate = ev.t.Rate * p.scale
	row.SLOMet = p.ok
	row.GoodputFraction = float64(p.good) / float64(p.nAll)
	if s.Makespan > 0 {
		row.GoodputReqPerSec = float64(p.good) / s.Makespan
		row.GoodputOutTokPerSec = float64(p.goodOut) / s.Makespan
		// A config that ran passed plan.Validate (device.count ≤ 2^20,
		// each pool's replicas ≤ 2^15): the product cannot wrap.
		row.GoodputOutTokPerSecPerDevice = row.GoodputOutTokPerSec / float64(row.DeviceCount*row.Replicas)
		row.ReqPerSec, row.OutTokPerSec = s.ReqPerSec, s.OutputTokPerSec
	}
	row.TTFTP50, row.TTFTP99 = distP99(s.TTFT.N, s.TTFT.P50), distP99(s.TTFT.N, s.TTFT.P99)
	row.TPOTMean, row.TPOTP99 = distP99(s.TPOT.N, s.TPOT.Mean), distP99(s.TPOT.N, s.TPOT.P99)
	row.E2EP99 = distP99(s.E2E.N, s.E2E.P99)
	row.DeviceSeconds = s.DeviceSeconds
	row.USDPerMOutEst = perM(c.PerMOutputUSD, s.OutputTokens)
	row.USDPerMTotalEst = perM(c.PerMTotalUSD, s.InputTokens+s.OutputTokens)
	if c.HasBilled {
		row.USDPerMOutBilled = perM(c.BilledPerMOutputUSD, s.OutputTokens)
	}
}

// Candidate is one config handed to verify: its plan and what the
// simulator predicts at the rate it should be replayed at.
type Candidate struct {
	Rank      int64   `json:"rank"`
	Index     int64   `json:"index"`
	Label     string  `json:"label"`
	Plan      string  `json:"plan_toml"`
	RateScale float64 `json:"rate_scale"` // replay the trace at this arrival-rate scale
	// CapacityLowerBound: the SLO held up to the search's limit
	// (Row.CapacityLowerBound), so RateScale and the predicted figures
	// are at that load, not at the capacity: there req/s and goodput
	// are higher and the cost per token and tail penalty lower.
	CapacityLowerBound bool `json:"capacity_lower_bound,omitempty"`
	Predicted          struct {
		ArrivalRate         *float64 `json:"arrival_rate_req_per_s"`
		GoodputFraction     *float64 `json:"goodput_fraction"`
		GoodputReqPerSec    *float64 `json:"goodput_req_per_s"`
		GoodputOutTokPerSec *float64 `json:"goodput_out_tok_per_s"`
		ReqPerSec           *float64 `json:"req_per_s"`
		OutTokPerSec        *float64 `json:"out_tok_per_s"`
		TTFTP50             *float64 `json:"ttft_p50_s"`
		TTFTP99             *float64 `json:"ttft_p99_s"`
		TPOTMean            *float64 `json:"tpot_mean_s"`
		TPOTP99             *float64 `json:"tpot_p99_s"`
		E2EP99              *float64 `json:"e2e_p99_s"`
		DeviceSeconds       *float64 `json:"device_seconds"`
		USDPerMOutEst       *float64 `json:"usd_per_m_out_est"`
		USDPerMOutBilled    *float64 `json:"usd_per_m_out_billed"`
		TailPenalty         *float64 `json:"tail_penalty"`
		KneeScale           *float64 `json:"knee_scale"`
	} `json:"predicted"`
}

// CandidateFile is the --top output: the best configs for verify.
type CandidateFile struct {
	SpecSHA256  string `json:"spec_sha256"`
	Spec        string `json:"spec"`
	TraceName   string `json:"trace"`
	TraceSHA256 string `json:"trace_sha256"`
	// Settings are the results' (Meta.Settings): the build, the catalog
	// and profile by sha256, the knee thresholds; "" in files written
	// before they were recorded.
	Settings   string      `json:"settings,omitempty"`
	Candidates []Candidate `json:"candidates"`
}

func opt(v float64) *float64 {
	if !finite(v) {
		return nil
	}
	return &v
}

// Candidates returns the n best ranked rows as candidates, by rank.
func Candidates(res *Results, n int) *CandidateFile {
	cf := &CandidateFile{SpecSHA256: res.Meta.SpecSHA256, Spec: res.Meta.Spec, TraceName: res.Meta.TraceName,
		TraceSHA256: res.Meta.TraceSHA256, Settings: res.Meta.Settings, Candidates: []Candidate{}}
	for _, r := range Top(res.Rows, n) {
		c := Candidate{Rank: r.Rank, Index: r.Index, Label: r.Label, Plan: r.PlanTOML, RateScale: r.Scale, CapacityLowerBound: r.CapacityLowerBound()}
		p := &c.Predicted
		p.ArrivalRate, p.GoodputFraction, p.GoodputReqPerSec = opt(r.ArrivalRate), opt(r.GoodputFraction), opt(r.GoodputReqPerSec)
		p.GoodputOutTokPerSec, p.ReqPerSec, p.OutTokPerSec = opt(r.GoodputOutTokPerSec), opt(r.ReqPerSec), opt(r.OutTokPerSec)
		p.TTFTP50, p.TTFTP99, p.TPOTMean, p.TPOTP99 = opt(r.TTFTP50), opt(r.TTFTP99), opt(r.TPOTMean), opt(r.TPOTP99)
		p.E2EP99, p.DeviceSeconds = opt(r.E2EP99), opt(r.DeviceSeconds)
		p.USDPerMOutEst, p.USDPerMOutBilled = opt(r.USDPerMOutEst), opt(r.USDPerMOutBilled)
		p.TailPenalty, p.KneeScale = opt(r.TailPenalty), opt(r.KneeScale)
		cf.Candidates = append(cf.Candidates, c)
	}
	return cf
}

// Top returns up to n ranked rows by rank (n ≤ 0: all of them). Rows read
// from a file need not hold every rank (a filtered file skips some).
func Top(rows []Row, n int) []*Row {
	var out []*Row
	for i := range rows {
		if rows[i].Rank > 0 {
			out = append(out, &rows[i])
		}
	}
	slices.SortStableFunc(out, func(a, b *Row) int { return cmp.Compare(a.Rank, b.Rank) })
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// CappedPast returns the ranked rows past the n best whose capacity is a
// lower bound (Row.CapacityLowerBound), by rank: ranked by their cost at
// the search's limit, an upper bound, each may cost less than the n best
// at its true capacity. None when n ≤ 0 (all are taken).
func CappedPast(rows []Row, n int) []*Row {
	all := Top(rows, 0)
	if n <= 0 || len(all) <= n {
		return nil
	}
	var out []*Row
	for _, r := range all[n:] {
		if r.CapacityLowerBound() {
			out = append(out, r)
		}
	}
	return out
}

// WriteCandidates writes the n best configs as JSON at path, atomically.
func WriteCandidates(path string, res *Results, n int) error {
	cf := Candidates(res, n)
	for _, c := range cf.Candidates {
		// verify replays each at its scale: JSON has no number for one
		// that is not finite, and encoding/json's error names no row.
		if !finite(c.RateScale) {
			return fmt.Errorf("%s: candidate rank %d, index %d (%q): scale %g: want a finite arrival-rate scale to replay it at", path, c.Rank, c.Index, c.Label, c.RateScale)
		}
	}
	data, err := json.MarshalIndent(cf, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}

// Counts summarises rows by outcome and skip reason.
func Counts(rows []Row) (outcomes, skips map[string]int) {
	outcomes, skips = map[string]int{}, map[string]int{}
	for _, r := range rows {
		outcomes[r.Outcome]++
		if r.SkipReason != "" {
			skips[r.SkipReason]++
		}
	}
	return outcomes, skips
}

// EffectiveWorkers is the number of workers Run uses (at most one per
// config to run).
func (o Options) EffectiveWorkers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}
