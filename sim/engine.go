package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/traces"
)

// Run simulates cfg over the requests of in (which must be in arrival
// order) and streams one row per request to out (nil: no rows). Run reads
// in to the end but closes neither in nor out.
//
// The Summary is returned even when err is not nil, covering what was
// simulated. A static policy that runs out of KV memory ends the run with an
// *OOMError (also in Summary.OOM); every request the run did not serve,
// unfinished or still to be read, then gets a row with no measurements and
// Error "not run: " and the OOM.
func Run(ctx context.Context, cfg Config, in traces.Reader, out traces.Writer) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if in == nil {
		return nil, errors.New("sim: Run: nil input reader")
	}
	rows := newRowOrder(out)
	e := newEngine(&cfg, in.Meta(), rows)
	e.m.reserve(in)
	a := &arrivals{in: in}
	unarrived, err := finishRun(e.runAll(ctx, a), rows, []*engine{e}, a.leftover)
	e.m.measured.requests += unarrived
	return e.summary(), err
}

// leftover writes a row marked not run, with reason, for every request a
// run stopped by an OOM had not handed an engine, and returns the measured
// ones among them.
type leftover func(out *rowOrder, reason string) (unarrived int64, _ error)

// finishRun closes a run whose loop returned err, with left the requests
// it had not handed an engine: it reports what the engines finished
// (endRun), flushes the rows and ends every engine, returning endRun's
// unarrived and the first error of all these.
func finishRun(err error, rows *rowOrder, engines []*engine, left leftover) (unarrived int64, _ error) {
	unarrived, err = endRun(err, rows, engines, left)
	err = firstErr(err, rows.flush())
	for _, e := range engines {
		err = e.end(err)
	}
	return unarrived, err
}

// endRun reports what the engines finished and returns err, or the error
// that kept it from writing their rows. When err is a static OOM, the run
// ended when it happened: what the engines finished by then is served,
// their figures stop there, and every request the run did not serve —
// those finished later, those the engines hold unfinished and those left
// (left writes them; nil: none) — gets a row marked not run. unarrived
// counts the measured requests among those left: no engine counted them
// as arrived, and the run's requests include them, as its rows do.
func endRun(err error, out *rowOrder, engines []*engine, left leftover) (unarrived int64, _ error) {
	var oom *OOMError
	if !errors.As(err, &oom) {
		for _, e := range engines {
			if rerr := e.report(math.MaxInt64); rerr != nil {
				return 0, firstErr(err, rerr)
			}
		}
		return 0, err
	}
	stop := oom.at
	for _, e := range engines {
		if rerr := e.report(stop); rerr != nil {
			return 0, rerr
		}
		e.m.cut(stop, e.now)
	}
	reason := notRunReason(err)
	if werr := writeInFlight(out, engines, reason); werr != nil {
		return 0, werr
	}
	if left == nil {
		return 0, err
	}
	unarrived, werr := left(out, reason)
	if werr != nil {
		return 0, werr
	}
	return unarrived, err
}

// leftover writes a row marked not run for the request a holds and every
// one left in its input, each with its arrival.
func (a *arrivals) leftover(out *rowOrder, reason string) (unarrived int64, _ error) {
	var row traces.Request
	notRun := func(r *traces.Request) error {
		if !r.Warmup {
			unarrived++
		}
		return out.putNotRun(a.n-1, &row, r, r.Arrival, reason)
	}
	if r := a.inHand; r != nil {
		a.inHand = nil
		if err := notRun(r); err != nil {
			return 0, err
		}
	}
	for {
		r, err := a.next()
		if err != nil {
			return 0, err
		}
		if r == nil {
			return unarrived, nil
		}
		if err := notRun(r); err != nil {
			return 0, err
		}
	}
}

// NotRunPrefix starts the Error of a row the run stopped before serving
// (after an OOMError), as "rejected: " starts that of a request that could
// never run.
const NotRunPrefix = "not run: "

// notRunReason is the Error of a row that the run stopped by cause did not
// serve.
func notRunReason(cause error) string {
	return NotRunPrefix + strings.TrimPrefix(cause.Error(), "sim: ")
}

// writeInFlight writes a row marked not run for every request the engines
// hold unfinished or have not reported.
func writeInFlight(out *rowOrder, engines []*engine, reason string) error {
	if out == nil {
		return nil
	}
	var held []*seq
	for _, e := range engines {
		held = append(held, e.done...)
		for s := e.runHead; s != nil; s = s.next {
			held = append(held, s)
		}
		for i := range e.waiting.len() {
			held = append(held, e.waiting.at(i))
		}
		for i := range e.arriving.len() {
			held = append(held, e.arriving.at(i))
		}
	}
	slices.SortFunc(held, func(x, y *seq) int { return cmp.Compare(x.idx, y.idx) })
	for _, s := range held {
		markNotRun(&s.req, s.origin, reason)
		if err := out.put(s.idx, &s.req); err != nil {
			return err
		}
	}
	return nil
}

// markNotRun clears r's observations and marks it not run: it has no
// measurement, and was due at issued, where a served row's latencies
// start (its arrival, or a closed loop's issue).
func markNotRun(r *traces.Request, issued int64, reason string) {
	r.ClearObserved()
	r.ScheduledSend = issued
	r.Error = reason
}

// end returns err, else the first failure to write the decision log, else
// a failed internal check.
func (e *engine) end(err error) error {
	if ferr := e.log.flush(); err == nil && ferr != nil {
		err = fmt.Errorf("sim: writing decision log: %w", ferr)
	}
	if err == nil && e.m.checkErr != nil {
		err = e.m.checkErr
	}
	return err
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// runAll feeds every request of a to e at its arrival time, then drains.
func (e *engine) runAll(ctx context.Context, a *arrivals) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for {
		r, err := a.next()
		if err != nil || r == nil {
			if err == nil {
				err = e.advanceTo(ctx, math.MaxInt64)
			}
			return err
		}
		a.inHand = r
		if err := e.advanceTo(ctx, r.Arrival); err != nil {
			return err
		}
		a.inHand = nil
		if err := e.add(r, a.n-1); err != nil {
			return err
		}
	}
}

// arrivals reads requests and checks that they come in arrival order.
type arrivals struct {
	in   traces.Reader
	n    int64 // requests read
	last int64
	// inHand is the request read last while it waits for the engines to
	// reach its arrival; nil once handed over.
	inHand *traces.Request
}

// next returns the next request (valid until the following call), or nil
// at the end of the input.
func (a *arrivals) next() (*traces.Request, error) {
	if !a.in.Next() {
		if err := a.in.Err(); err != nil {
			return nil, fmt.Errorf("sim: reading requests: %w", err)
		}
		return nil, nil
	}
	r := a.in.At()
	if r.Arrival < 0 {
		return nil, fmt.Errorf("sim: request %d (id %q): negative arrival %d ns", a.n, r.ID, r.Arrival)
	}
	if a.n > 0 && r.Arrival < a.last {
		return nil, fmt.Errorf("sim: request %d (id %q) arrives at %d ns, before the previous one (%d ns): input must be in arrival order", a.n, r.ID, r.Arrival, a.last)
	}
	a.last = r.Arrival
	a.n++
	return r, nil
}

// engine is the state of one replica. Time is int64 ns from the trace
// start (now) plus a sub-nanosecond remainder (frac, in [-0.5, 0.5]) so
// that stepping and jumping sum the same real durations.
//
// The engine is driven from outside: advanceTo(t) runs every iteration
// that starts before t, add hands it a request at its arrival. Run drives
// one engine; RunCluster drives one per replica from a single queue.
type engine struct {
	cfg     *Config
	pol     scheduler
	timer   StepTimer
	stretch DecodeStretcher // nil: step one iteration at a time
	bs      int
	hashBS  int
	out     *rowOrder // nil: no rows
	// finished counts requests finished or rejected (a closed loop frees
	// a client for each).
	finished int
	// done holds the requests finished and not yet reported (see report),
	// all at the end of the last iteration.
	done []*seq
	// batchEnd caches lastStepStart until the next iteration (-1: none).
	batchEnd   int64
	finScratch []*seq

	now  int64
	frac float64
	// next is when the next iteration starts: now while there is work,
	// the policy's wake-up time while idle, math.MaxInt64 while idle until
	// a request arrives.
	next  int64
	iters int64
	g     int64 // steps executed
	// gAlloc is the number of steps whose decode blocks are allocated:
	// g at a step's start, g+1 once the policy allocated for it.
	gAlloc int64

	waiting deque
	// arriving holds requests that arrived while the engine was busy and
	// have not reached its scheduler yet (Admitter): each joins waiting
	// admitDelay ns after its arrival, in arrival order, or with lock
	// (Admission.Lock) as handOverLocked lets it in.
	arriving   deque
	admitDelay int64
	lock       bool
	// cutAtArrivals: every arrival cuts a decode stretch, even one no
	// arrival could join, since a rejected arrival frees its client to
	// issue the next request at once.
	cutAtArrivals bool
	// originAtIssue: a request's latencies count from its ScheduledSend
	// (the loop's issue), not from its arrival.
	originAtIssue bool
	// trackEnds: each request of a session that completes or is refused
	// is listed in ends, for session waiting to release its next turn.
	trackEnds bool
	ends      []turnEnd
	// With lock: sequence slots free, and those the step that just ended
	// freed (handed out as the next step forms).
	slotsFree, slotsFreed int

	runHead, runTail *seq
	nRunning         int
	measuredRunning  int    // running requests that are not warm-up rows
	pre              []*seq // running sequences still prefilling, admission order

	// cells: with a step timer that charges Batch.Resident, llama.cpp's
	// sequence slots and KV cells, which set the cells a step attends over
	// (nil: not tracked; Resident is the running sequences' tokens).
	cells   *SlotCache
	slotTok []int32 // scratch: this step's new tokens per slot

	// sincePrefill counts the steps since the last one with prompt tokens;
	// postPrefill says the step timer charges the PostPrefillSteps after it.
	sincePrefill int64
	postPrefill  bool

	nDec   int64   // decoding sequences
	dSum   int64   // Σ (ctxE − ge) over decoding sequences: Σ context before step g = nDec·g + dSum
	phase  []int32 // non-reserved decoding sequences by the step (mod bs) at which they need a new block
	nPhase int64
	fins   finHeap

	bm      *blockManager
	m       *metrics
	log     *decisionLog
	pool    []*seq
	preempt []int64 // ids preempted in the current step
	batchNo int64
	oom     *OOMReport
	where   string // in a cluster of several replicas, which one this is (OOMReport.Replica)
	// canOOM: a static batch could run out of KV memory (static.canOOM).
	canOOM bool

	checkRefs []int32
}

func newEngine(cfg *Config, meta traces.Meta, out *rowOrder) *engine {
	e := &engine{cfg: cfg, timer: cfg.Step, bs: cfg.BlockSize, out: out, next: math.MaxInt64, sincePrefill: PostPrefillSteps, batchEnd: -1}
	e.pol = newScheduler(cfg.Policy)
	if p, ok := e.pol.(*static); ok {
		e.canOOM = p.canOOM(cfg)
	}
	if d, ok := cfg.Step.(DecodeStretcher); ok && !cfg.NoSkip {
		e.stretch = d
	}
	if pt, ok := cfg.Step.(PostPrefillTimer); ok {
		e.postPrefill = pt.UsesPostPrefill()
	}
	if a, ok := cfg.Step.(Admitter); ok {
		ad := a.Admission()
		e.lock = ad.Lock && cfg.Policy.Name == Continuous
		delay := ad.Delay
		if ad.Lock && !e.lock {
			delay = ad.UnlockedDelay
		}
		e.admitDelay = int64(math.Round(delay * 1e9))
		e.slotsFree = cfg.Policy.MaxNumSeqs
	}
	if rt, ok := cfg.Step.(ResidentTimer); ok && rt.UsesResident() && cfg.Slots > 0 {
		// Where the cache's history put tokens sets each step's cost, so
		// steps are simulated one at a time.
		cells := cfg.Cells
		if cells == 0 {
			cells = cfg.TotalBlocks * cfg.BlockSize
		}
		e.cells = NewSlotCache(cfg.Slots, cells)
		e.slotTok = make([]int32, cfg.Slots)
		e.stretch = nil
	}
	e.hashBS = hashBlockSize(cfg, meta)
	e.phase = make([]int32, cfg.BlockSize)
	e.bm = newBlockManager(cfg.TotalBlocks, cfg.PrefixCaching)
	e.m = newMetrics(cfg)
	e.log = newDecisionLog(cfg.Decisions)
	return e
}

// hashBlockSize is the number of prompt tokens one PrefixHashes entry covers.
func hashBlockSize(cfg *Config, meta traces.Meta) int {
	switch {
	case cfg.HashBlockSize > 0:
		return cfg.HashBlockSize
	case meta.BlockSize > 0:
		return meta.BlockSize
	}
	return cfg.BlockSize
}

// advanceTo runs every iteration that starts strictly before t: a step, a
// pure-decode stretch (cut so that its last step starts before t, unless
// the policy reports that an arrival could not change it), or an idle
// wait until a policy wake-up. Afterwards either now ≥ t or the engine is
// idle with next ≥ t, so a request arriving at t can be added. t =
// math.MaxInt64 drains the engine.
func (e *engine) advanceTo(ctx context.Context, t int64) error {
	for e.next < t {
		if e.iters&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := e.iterate(t, math.MaxInt64); err != nil {
			return err
		}
	}
	return nil
}

// add hands e a request arriving at r.Arrival (copied; r may be reused).
// The caller has advanced e to r.Arrival. idx identifies the request in
// the decision log and its row, and orders ties; it must increase from
// call to call, except under session waiting (addAt).
func (e *engine) add(r *traces.Request, idx int64) error {
	return e.addAt(r, idx, r.Arrival)
}

// addAt is add for a request that reaches e at arrival, not at the
// r.Arrival its row keeps: a held turn of a session. Its idx is its input
// index, so held turns are handed over out of input order.
func (e *engine) addAt(r *traces.Request, idx, arrival int64) error {
	if e.now < arrival { // idle: the clock jumps to the arrival
		e.m.kvAt(e.now, e.bm.used())
		e.now, e.frac = arrival, 0
	}
	s := e.newSeq(r, idx, arrival)
	e.m.arrived(s, e.now)
	if reason := e.rejectReason(s); reason != "" {
		return e.reject(s, reason)
	}
	if !e.lock {
		// The requests that reached the scheduler by now are waiting, so
		// one arriving at an engine idle now joins them in its next step:
		// those that got there in the step that just ended, as the idle
		// engine woke for them, or at step boundaries that a static
		// batch's stretch skipped.
		e.handOver()
	}
	if (e.admitDelay > 0 || e.lock) && (e.nRunning > 0 || e.now > arrival || e.arriving.len() > 0) {
		// A busy engine takes a while to hand a new request to its
		// scheduler; an idle one's first step includes that time.
		s.gate = gateOut
		e.arriving.pushBack(s)
		// Never before now: a request that reached the scheduler during
		// the step in progress joins the step after it, with any other
		// request that arrives before that step starts.
		e.next = max(e.now, min(e.next, e.ready()))
		return nil
	}
	if e.lock {
		e.slotsFree--
	}
	e.waiting.pushBack(s)
	e.next = e.now
	return nil
}

// ready is when the first arriving request reaches the scheduler
// (math.MaxInt64: none is arriving).
func (e *engine) ready() int64 {
	if e.arriving.len() == 0 {
		return math.MaxInt64
	}
	return e.arriving.front().arrival + e.admitDelay
}

// handOver moves the arriving requests that have reached the scheduler by
// now to the waiting queue.
func (e *engine) handOver() {
	if e.lock {
		e.handOverLocked()
		return
	}
	for e.arriving.len() > 0 && e.ready() <= e.now {
		e.waiting.pushBack(e.arriving.popFront())
	}
}

// handOverLocked is handOver at a step boundary of an engine that takes
// requests in under its step loop's lock (Admission.Lock), in three moves:
//
//  1. requests that reached the engine by now take a free slot, and wait
//     for the lock from when they reached it (without a slot they block);
//  2. the step that just ended releases the lock: if a request waiting for
//     it was passed over before, every request waiting by now gets it in
//     turn and joins the next step; otherwise the loop takes it back first
//     and passes them all over; an idle loop lets every one in;
//  3. the slots of the sequences that finished in that step free as the
//     next step forms: blocked requests take them and wait from now.
func (e *engine) handOverLocked() {
	idle := e.nRunning == 0 && e.waiting.len() == 0
	n := e.arriving.len()
	passed := false
	for i := range n {
		s := e.arriving.at(i)
		if s.gate == gateOut && s.arrival+e.admitDelay <= e.now && e.slotsFree > 0 {
			e.slotsFree--
			s.gate, s.lockFrom = gateLock, s.arrival+e.admitDelay
		}
		passed = passed || s.gate == gatePassed
	}
	for range n {
		s := e.arriving.popFront()
		switch {
		case s.gate != gateOut && (passed || idle):
			e.waiting.pushBack(s)
		case s.gate == gateLock && s.lockFrom < e.now:
			s.gate = gatePassed
			e.arriving.pushBack(s)
		default:
			e.arriving.pushBack(s)
		}
	}
	for i := 0; i < e.arriving.len() && e.slotsFreed > 0; i++ {
		if s := e.arriving.at(i); s.gate == gateOut && s.arrival+e.admitDelay <= e.now {
			e.slotsFreed--
			s.gate, s.lockFrom = gateLock, e.now
		}
	}
	e.slotsFree += e.slotsFreed
	e.slotsFreed = 0
	if idle {
		for range e.arriving.len() {
			if s := e.arriving.popFront(); s.gate != gateOut {
				e.waiting.pushBack(s)
			} else {
				e.arriving.pushBack(s)
			}
		}
	}
}

// outstanding is the number of requests added to e and not finished by
// time t, as a router would count them: a completion at the end of a step
// that started before t but ends after it has not been seen yet.
func (e *engine) outstanding(t int64) int64 {
	n := e.m.requests - e.m.completes - e.m.rejects
	if e.m.lastDoneT > t {
		n += e.m.lastDoneN
	}
	return n
}

// iterate runs one engine iteration starting at e.next < t. A stretch
// starts none of its steps at or after limit (math.MaxInt64: no limit).
func (e *engine) iterate(t, limit int64) error {
	e.iters++
	e.batchEnd = -1
	// The requests the last iteration finished are served: an OOM
	// elsewhere (which ends the run) comes at now or later.
	if err := e.report(e.now); err != nil {
		return err
	}
	if e.now < e.next { // idle until a policy wake-up or a hand-over
		e.m.kvAt(e.now, e.bm.used())
		e.now, e.frac = e.next, 0
	}
	e.handOver()
	// A request waiting for the lock changes state at every boundary.
	// The steps right after a prompt cost more (AfterPrefill): they are
	// not part of a stretch.
	if e.stretch != nil && len(e.pre) == 0 && e.nDec > 0 && !(e.lock && e.arriving.len() > 0) &&
		!(e.postPrefill && e.sincePrefill < PostPrefillSteps) {
		if ok, watch, anon := e.pol.holds(e); ok {
			// Under the lock an arrival needs the step boundaries that
			// follow it to get in, so the jump stops at one.
			until := limit
			if watch || e.lock || e.cutAtArrivals {
				until = min(until, t, e.ready())
			}
			if k := e.stretchLen(anon, until); k >= 2 {
				err := e.jump(k)
				e.next = e.now
				return err
			}
		}
	}
	e.preempt = e.preempt[:0]
	wake, err := e.pol.schedule(e)
	if err != nil {
		return err
	}
	e.gAlloc = e.g + 1
	if e.nDec == 0 && !e.hasPrefill() {
		// Idle from now: what the last step freed is free from its end,
		// not from whenever the clock next moves (a replica idle until
		// the cluster's window closes may never move it again).
		e.m.kvAt(e.now, e.bm.used())
		e.gAlloc = e.g
		if wake < 0 {
			if e.waiting.len() > 0 || e.nRunning > 0 {
				return fmt.Errorf("sim: internal: %d requests waiting and %d running at t=%d ns but nothing can be scheduled", e.waiting.len(), e.nRunning, e.now)
			}
			e.next = e.ready()
			return nil
		}
		if wake <= e.now {
			return fmt.Errorf("sim: internal: idle until t=%d ns, not after now (%d ns)", wake, e.now)
		}
		e.next = min(wake, e.ready())
		return nil
	}
	err = e.execStep()
	e.next = e.now
	return err
}

func (e *engine) hasPrefill() bool {
	for _, s := range e.pre {
		if s.chunk > 0 {
			return true
		}
	}
	return false
}

// advance moves the clock by sec seconds, keeping the sub-ns remainder.
// A time past the int64 ns clock is an error: it would wrap round to a
// negative time.
func (e *engine) advance(sec float64) error {
	x := e.frac + sec*1e9
	n := math.Round(x)
	if !(n < float64(math.MaxInt64-e.now)) {
		return fmt.Errorf("sim: %.6g s of steps from t=%d ns end past the simulator's clock (int64 ns, about 292 years)", sec, e.now)
	}
	e.now += int64(n)
	e.frac = x - n
	return nil
}

// execStep runs the batch the policy formed: one engine iteration.
func (e *engine) execStep() error {
	var b Batch
	for _, s := range e.pre {
		if s.chunk > 0 {
			c := float64(s.chunk)
			b.PrefillTokens += c
			b.PrefillAttn += c * float64(s.computed+s.chunk)
			b.PrefillContext += float64(s.computed)
		}
		b.Resident += float64(s.computed + s.chunk)
	}
	b.DecodeSeqs = float64(e.nDec)
	b.DecodeContext = float64(e.nDec*e.g + e.dSum + e.nDec)
	if b.PrefillTokens > 0 {
		e.sincePrefill = 0
	} else {
		if e.sincePrefill < PostPrefillSteps {
			b.AfterPrefill = 1
		}
		e.sincePrefill++
	}
	b.Resident += b.DecodeContext
	if e.cells != nil {
		b.Resident = float64(e.placeCells())
	}
	dt := e.timer.StepSeconds(b)
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("sim: step timer returned %v s for batch %+v: want a finite time > 0", dt, b)
	}
	if e.log != nil {
		e.log.step(e, b, dt)
	}
	measured := e.measuredRunning > 0
	sp, u := e.m.mark(e.now, measured), e.bm.used()
	e.m.kvAt(e.now, u)
	if err := e.advance(dt); err != nil {
		return err
	}
	e.m.addBusy(e.now, dt)
	e.m.track(sp, e.now, u, u, measured)
	e.m.steps++
	e.g++
	e.gAlloc = e.g
	j := 0
	for _, s := range e.pre {
		if s.state != stRunning {
			continue
		}
		if s.chunk > 0 {
			s.computed += s.chunk
			s.chunk = 0
			if s.computed == s.target {
				s.gen++
				if s.first == traces.Missing {
					s.first = e.now
				}
				var err error
				if s.gen >= s.out {
					err = e.complete(s)
				} else {
					e.enterDecode(s)
				}
				if err != nil {
					return err
				}
				continue
			}
		}
		e.pre[j] = s
		j++
	}
	clear(e.pre[j:])
	e.pre = e.pre[:j]
	if err := e.finishDecodes(); err != nil {
		return err
	}
	return e.checkStep()
}

// placeCells puts this step's new tokens in the slot cache and returns
// the cells the step attends over. Prompt chunks over UBatch tokens go in
// rounds, as Ollama's runner batches them (SlotCache.Prefill).
func (e *engine) placeCells() int {
	clear(e.slotTok)
	for _, s := range e.pre {
		if s.chunk > 0 && s.slot >= 0 {
			e.slotTok[s.slot] = max(0, s.computed+s.chunk-e.cells.Held(int(s.slot)))
		}
	}
	for s := e.runHead; s != nil; s = s.next {
		if s.decoding && s.slot >= 0 {
			e.slotTok[s.slot] = 1
		}
	}
	return e.cells.Prefill(e.slotTok)
}

// jump advances k pure-decode steps at once.
func (e *engine) jump(k int64) error {
	n := e.nDec
	c0 := float64(n*e.g + e.dSum + n)
	T := e.stretch.DecodeSeconds(float64(n), c0, k)
	if !(T > 0) || math.IsInf(T, 0) {
		return fmt.Errorf("sim: step timer returned %v s for %d decode steps of %d sequences: want a finite time > 0", T, k, n)
	}
	u0 := e.bm.used()
	if err := e.bm.allocPrivate(int(e.phaseNeed(k))); err != nil {
		return err
	}
	if e.log != nil {
		e.log.stretch(e, k, c0, T, min(k, max(0, PostPrefillSteps-e.sincePrefill)))
	}
	measured := e.measuredRunning > 0
	sp := e.m.mark(e.now, measured)
	e.m.kvAt(e.now, u0)
	t0 := e.now
	if err := e.advance(T); err != nil {
		return err
	}
	e.m.kvRamp(t0, e.now, u0, e.bm.used())
	e.m.addBusy(e.now, T)
	e.m.track(sp, e.now, u0, e.bm.used(), measured)
	e.m.steps += k
	e.m.stretches++
	e.m.stretchSteps += k
	e.g += k
	e.gAlloc = e.g
	e.sincePrefill += k
	if err := e.finishDecodes(); err != nil {
		return err
	}
	return e.checkStep()
}

// oomBound is the earliest time at which e could stop the run with an
// OOM, given that a request could reach it at arrival. A static batch
// forms only on an idle device, so not before the running one has
// started its last step. math.MaxInt64: never (continuous batching
// preempts instead; some static configurations always fit).
func (e *engine) oomBound(arrival int64) int64 {
	if !e.canOOM {
		return math.MaxInt64
	}
	if e.nRunning == 0 {
		return min(e.next, arrival)
	}
	if e.stretch == nil || len(e.pre) > 0 || len(e.fins) == 0 || (e.postPrefill && e.sincePrefill < PostPrefillSteps) {
		return e.next
	}
	if e.batchEnd < 0 {
		e.batchEnd = e.lastStepStart()
	}
	return e.batchEnd
}

// lastStepStart is when the last step of the running sequences starts,
// every step until then pure decode (a static batch: nothing joins it):
// segments of constant size between completions, each a closed form.
func (e *engine) lastStepStart() int64 {
	fins := append(e.finScratch[:0], e.fins...)
	slices.SortFunc(fins, func(a, b *seq) int { return cmp.Compare(a.fin, b.fin) })
	last := fins[len(fins)-1].fin
	n, dSum, g := e.nDec, e.dSum, e.g
	d := e.frac
	for _, s := range fins {
		if end := min(s.fin, last-1); end >= g {
			d += e.stretch.DecodeSeconds(float64(n), float64(n*g+dSum+n), end-g+1) * 1e9
			g = end + 1
		}
		n--
		dSum -= int64(s.ctxE) - s.ge
	}
	clear(fins)
	e.finScratch = fins[:0]
	if !(d < float64(math.MaxInt64-e.now)) {
		return math.MaxInt64
	}
	return e.now + int64(d) // truncated: never past the step's start
}

// stretchLen is how many pure-decode steps can run before something
// changes: a completion, a sequence needing a block with none free (anon:
// none free without evicting a cached block), or a step starting at or
// after t (an arrival, or another replica's possible OOM; math.MaxInt64:
// none).
func (e *engine) stretchLen(anon bool, t int64) int64 {
	k := e.fins[0].fin - e.g + 1
	if e.nPhase > 0 {
		f := e.bm.free()
		if anon {
			f = e.bm.leadAnon()
		}
		k = min(k, e.blockSteps(int64(f)))
	}
	if t != math.MaxInt64 && k >= 2 {
		n := float64(e.nDec)
		c0 := float64(e.nDec*e.g + e.dSum + e.nDec)
		// Step j starts at now+frac+T(j) ns; it runs before an arrival at t
		// when that rounds below t.
		d := (float64(t-e.now) - 0.5 - e.frac) / 1e9
		// The arrival cuts the stretch only when its first k−1 steps do
		// not all start before it: one closed-form sum decides, where
		// sizing the stretch by the arrival takes three or more.
		if e.stretch.DecodeSeconds(n, c0, k-1) > d {
			k = min(k, e.stretch.DecodeSteps(n, c0, d)+1)
		}
	}
	return k
}

// phaseNeed is the number of blocks the decoding sequences need over the
// next k steps.
func (e *engine) phaseNeed(k int64) int64 {
	if e.nPhase == 0 {
		return 0
	}
	bs := int64(e.bs)
	need := k / bs * e.nPhase
	i := e.g % bs // one division, not one a step
	for range k % bs {
		need += int64(e.phase[i])
		if i++; i == bs {
			i = 0
		}
	}
	return need
}

// blockSteps is the largest k such that over the next k steps the decoding
// sequences need at most f new blocks.
func (e *engine) blockSteps(f int64) int64 {
	bs := int64(e.bs)
	q := f / e.nPhase
	r := f - q*e.nPhase
	acc := int64(0)
	i := e.g % bs // one division, not one a step
	for j := int64(0); j < bs; j++ {
		c := int64(e.phase[i])
		if acc+c > r {
			return q*bs + j
		}
		acc += c
		if i++; i == bs {
			i = 0
		}
	}
	return q*bs + bs // unreachable: the phases sum to nPhase > r
}

// needsBlock reports whether decoding s needs a new block in step g.
func (e *engine) needsBlock(s *seq) bool {
	return !s.reserved && s.decoding && e.phaseOf(s) == int(e.g%int64(e.bs))
}

func (e *engine) phaseOf(s *seq) int {
	bs := int64(e.bs)
	return int(((s.ge-int64(s.ctxE))%bs + bs) % bs)
}

func (e *engine) enterDecode(s *seq) {
	s.decoding = true
	s.ctxE = s.computed
	s.ge = e.g
	s.fin = s.ge + int64(s.out-s.gen) - 1
	e.nDec++
	e.dSum += int64(s.ctxE) - s.ge
	if !s.reserved {
		e.phase[e.phaseOf(s)]++
		e.nPhase++
		s.private = 0 // lazy from here: see heldPrivate
	}
	e.fins.push(s)
}

// leaveDecode folds the lazy decode progress into s and removes it from the
// decode aggregates.
func (e *engine) leaveDecode(s *seq) {
	done := int32(e.g - s.ge)
	s.gen += done
	s.computed = s.ctxE + done
	if !s.reserved {
		s.private = int32(e.heldPrivate(s))
		e.phase[e.phaseOf(s)]--
		e.nPhase--
	}
	e.nDec--
	e.dSum -= int64(s.ctxE) - s.ge
	if s.hidx >= 0 {
		e.fins.remove(s.hidx)
	}
	s.decoding = false
}

// heldPrivate is the number of private blocks s holds.
func (e *engine) heldPrivate(s *seq) int64 {
	if s.decoding && !s.reserved {
		return blocksFor(int64(s.ctxE)+e.gAlloc-s.ge, e.bs) - int64(len(s.shared)) + int64(len(s.dupOf))
	}
	return int64(s.private)
}

func (e *engine) finishDecodes() error {
	for len(e.fins) > 0 && e.fins[0].fin < e.g {
		if err := e.complete(e.fins[0]); err != nil {
			return err
		}
	}
	return nil
}

// releaseBlocks frees everything s holds, cached blocks last-first so that
// a prompt's tail is evicted before its head.
func (e *engine) releaseBlocks(s *seq) error {
	if s.decoding {
		e.leaveDecode(s)
	}
	if err := e.bm.freePrivate(int(s.private)); err != nil {
		return err
	}
	s.private = 0
	for _, slot := range s.dupOf {
		e.bm.slab[slot].dups--
	}
	s.dupOf = s.dupOf[:0]
	for i := len(s.shared) - 1; i >= 0; i-- {
		slot := s.shared[i]
		if err := e.bm.release(slot); err != nil {
			return err
		}
		if b := e.bm.slab[slot]; b.ref > 0 && b.ref == b.dups {
			if err := e.keepOwnCopy(slot); err != nil {
				return err
			}
		}
	}
	s.shared = s.shared[:0]
	return nil
}

// keepOwnCopy handles cached block slot, now held only by requests that
// computed it into blocks of their own: one of them keeps it in place of
// its copy, which it frees, as vLLM frees the block of the request that
// cached it first and the others keep theirs.
func (e *engine) keepOwnCopy(slot int32) error {
	for t := e.runHead; t != nil; t = t.next {
		i := slices.Index(t.dupOf, slot)
		if i < 0 {
			continue
		}
		t.dupOf = slices.Delete(t.dupOf, i, i+1)
		e.bm.slab[slot].dups--
		if !t.decoding || t.reserved {
			t.private--
		}
		return e.bm.freePrivate(1)
	}
	return fmt.Errorf("sim: internal: cached KV block %d has %d own copies but no request holds one", slot, e.bm.slab[slot].dups)
}

// ownBlockTag sets the keys of a request's own blocks apart from prompt
// keys (the fractional bits of √2).
const ownBlockTag = 0x6a09e667f3bcc908

// cacheOwnBlocks turns the full private blocks of a sequence being
// preempted (its generated tokens, and prompt blocks without hashes) into
// cached blocks with keys of their own, as vLLM hashes every full block:
// its recompute then finds them unless they were evicted meanwhile. The
// keys chain on the prompt's last key and the request, and are tagged
// apart from prompt keys: a prompt key chains on a hash id by the same
// mix, and trace hash ids are small integers like request indices.
func (e *engine) cacheOwnBlocks(s *seq) error {
	full := int(s.computed) / e.bs
	from := max(len(s.shared), len(s.keys))
	if !e.cfg.PrefixCaching || e.cells != nil || s.reserved || full <= from {
		return nil
	}
	chain := mix64(0x2545f4914f6cdd1d, uint64(s.idx))
	if n := len(s.keys); n > 0 {
		chain = mix64(s.keys[n-1], uint64(s.idx))
	}
	for i := len(s.keys); i < full; i++ {
		s.keys = append(s.keys, mix64(chain, uint64(i))^ownBlockTag)
	}
	for i := from; i < full; i++ {
		slot, err := e.bm.adoptPrivate(s.keys[i])
		if err != nil {
			return err
		}
		s.shared = append(s.shared, slot)
		s.private--
	}
	return nil
}

// growPrefill takes blocks so that s holds tokens tokens: cached blocks for
// the prompt's hashed full blocks, private ones for the rest. Every block
// s computes is a new one from the head of the free queue, never a free
// cached copy (only a lookup at admission hits). The caller checked that
// enough blocks are free.
func (e *engine) growPrefill(s *seq, tokens int32) error {
	held := int64(len(s.shared)) + int64(s.private) - int64(len(s.dupOf))
	want := blocksFor(int64(tokens), e.bs)
	priv := 0
	b := held
	// Blocks with keys come first, and s holds at least the blocks it
	// shares: once a block is private so is every later one, counted at
	// once rather than a block at a time.
	for ; e.cfg.PrefixCaching && b < want && int(b) < len(s.keys) && int(b) == len(s.shared); b++ {
		// s computes this block: a free cached copy is not reused.
		e.bm.forget(s.keys[b])
		slot, _, err := e.bm.acquire(s.keys[b])
		if err != nil {
			return err
		}
		s.shared = append(s.shared, slot)
		// Held by another request too (the last prompt block, which a
		// lookup never hits): s computes it, into a block of its own,
		// static reservations included (their admission counted it).
		if e.bm.slab[slot].ref > 1 {
			priv++
			s.dupOf = append(s.dupOf, slot)
			e.bm.slab[slot].dups++
		}
	}
	priv += int(max(0, want-b))
	if err := e.bm.allocPrivate(priv); err != nil {
		return err
	}
	s.private += int32(priv)
	return nil
}

// preemptSeq evicts running s by recompute: its blocks are freed and it
// goes back to the head of the waiting queue to recompute prompt and
// generated tokens.
func (e *engine) preemptSeq(s *seq) error {
	if s.decoding {
		e.leaveDecode(s)
	}
	// A prompt block whose KV its chunks have not completed leaves the
	// cache: only full blocks are reused (as vLLM hashes only full ones).
	for n := len(s.shared); n > 0 && int64(n)*int64(e.bs) > int64(s.computed) && e.bm.slab[s.shared[n-1]].ref == 1; n-- {
		if err := e.bm.unkey(s.shared[n-1]); err != nil {
			return err
		}
		s.shared = s.shared[:n-1]
		s.private++
	}
	if err := e.cacheOwnBlocks(s); err != nil {
		return err
	}
	if err := e.releaseBlocks(s); err != nil {
		return err
	}
	e.releaseSlot(s, true)
	s.computed, s.chunk = 0, 0
	s.target = s.prompt + s.gen
	s.peekGen, s.slotGen = 0, 0
	s.preempts++
	e.runRemove(s)
	s.state = stWaiting
	e.waiting.pushFront(s)
	e.preempt = append(e.preempt, s.idx)
	if !s.req.Warmup {
		e.m.preemptions++
	}
	return nil
}

func (e *engine) admit(s *seq) {
	s.state = stRunning
	s.prev, s.next = e.runTail, nil
	if e.runTail != nil {
		e.runTail.next = s
	} else {
		e.runHead = s
	}
	e.runTail = s
	e.nRunning++
	if !s.req.Warmup {
		e.measuredRunning++
	}
	e.pre = append(e.pre, s)
	if s.start == traces.Missing {
		s.start = e.now
	}
}

// releaseSlot gives s's slot back; drop frees its cells too (a
// preempted sequence recomputes from scratch).
func (e *engine) releaseSlot(s *seq, drop bool) {
	if e.cells == nil || s.slot < 0 {
		return
	}
	if drop {
		e.cells.Drop(int(s.slot))
	}
	e.cells.Release(int(s.slot))
	s.slot = -1
}

func (e *engine) runRemove(s *seq) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		e.runHead = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		e.runTail = s.prev
	}
	s.prev, s.next = nil, nil
	e.nRunning--
	if !s.req.Warmup {
		e.measuredRunning--
	}
}

// complete finishes s at the current time. Its row and figures wait in
// done until report: a cluster that another replica's OOM stops before
// this time has not served it.
func (e *engine) complete(s *seq) error {
	if err := e.releaseBlocks(s); err != nil {
		return err
	}
	e.runRemove(s)
	e.releaseSlot(s, false)
	if e.lock {
		e.slotsFreed++
	}
	s.state = stDone
	s.last = e.now
	r := &s.req
	r.ScheduledSend, r.ActualSend = s.origin, traces.Missing
	r.StartTime, r.FirstToken, r.LastToken = s.start, s.first, s.last
	r.TokenTimes = nil
	r.UsagePrompt, r.UsageOutput, r.UsageCached = s.prompt, s.out, s.cached
	r.Chunks, r.Preemptions, r.HTTPStatus = traces.Missing, s.preempts, traces.Missing
	r.Error, r.FinishReason, r.OutputText = "", "length", ""
	e.m.finished(s)
	e.finished++
	e.done = append(e.done, s)
	e.ended(s, s.last)
	return nil
}

// ended lists s, which ended at the time at, in ends when they are tracked.
func (e *engine) ended(s *seq, at int64) {
	if e.trackEnds && ChainedTurn(&s.req) {
		e.ends = append(e.ends, turnEnd{s.req.SessionID, at})
	}
}

// report counts and writes the requests in done that finished by t.
func (e *engine) report(t int64) error {
	j := 0
	for _, s := range e.done {
		if s.last > t {
			e.done[j] = s
			j++
			continue
		}
		e.m.completed(s)
		if err := e.write(s); err != nil {
			return err
		}
	}
	clear(e.done[j:])
	e.done = e.done[:j]
	return nil
}

// reject reports a request that can never run under this configuration.
func (e *engine) reject(s *seq, reason string) error {
	s.state = stDone
	r := &s.req
	r.ScheduledSend, r.ActualSend = s.origin, traces.Missing
	r.StartTime, r.FirstToken, r.LastToken = traces.Missing, traces.Missing, traces.Missing
	r.TokenTimes = nil
	r.UsagePrompt, r.UsageOutput, r.UsageCached = traces.Missing, traces.Missing, traces.Missing
	r.Chunks, r.Preemptions, r.HTTPStatus = traces.Missing, traces.Missing, traces.Missing
	r.Error, r.FinishReason, r.OutputText = "rejected: "+reason, "", ""
	e.m.rejected(s)
	e.finished++
	e.ended(s, s.arrival) // answered at once, as it arrived
	return e.write(s)
}

// write writes finished s's row and recycles s.
func (e *engine) write(s *seq) error {
	if e.out != nil {
		if err := e.out.put(s.idx, &s.req); err != nil {
			return err
		}
	}
	s.req.PrefixHashes = nil
	s.req.ID, s.req.SessionID, s.req.Class, s.req.Error = "", "", "", ""
	e.pool = append(e.pool, s)
	return nil
}

func (e *engine) rejectReason(s *seq) string {
	if s.req.SourceFailed {
		return traces.SourceFailedReason
	}
	if m := e.cfg.MaxModelLen; m > 0 && int64(s.prompt)+int64(s.out) > int64(m) {
		return fmt.Sprintf("prompt %d + output %d tokens exceed max_model_len %d", s.prompt, s.out, m)
	}
	// The KV cache holds every token but the last one sampled, which is
	// never fed back.
	if n := blocksFor(int64(s.prompt)+int64(s.out)-1, e.bs); n > int64(e.cfg.TotalBlocks) {
		return fmt.Sprintf("prompt %d + output %d tokens need %d KV blocks (the last token is never cached), the device has %d", s.prompt, s.out, n, e.cfg.TotalBlocks)
	}
	return e.pol.rejects(e, s)
}

// setLengths sets s's prompt, output and reserved output from r as cfg
// serves them.
func (s *seq) setLengths(r *traces.Request, cfg *Config) {
	s.prompt, s.out = max(r.PromptTokens, 1), max(r.OutputTokens, 1)
	s.maxNew = s.out
	if m := int32(cfg.MaxNewTokens); m > 0 {
		s.out, s.maxNew = min(s.out, m), m
	}
	// No output runs past max_model_len (a request that asks for more is
	// rejected), so a static reservation stops there too.
	if l := int64(cfg.MaxModelLen); l > 0 && int64(s.prompt)+int64(s.maxNew) > l {
		s.maxNew = int32(max(l-int64(s.prompt), 1))
	}
}

// Rejecter returns the rule by which a run under c refuses a request on
// arrival: the reason r can never run ("" = it is admitted), whatever the
// load. c must be valid (Config.Validate). The returned func reuses one
// request record between calls, so it is not safe for concurrent use:
// each goroutine takes its own Rejecter.
func (c *Config) Rejecter() func(r *traces.Request) string {
	e := &engine{cfg: c, bs: c.BlockSize, pol: newScheduler(c.Policy)}
	var s seq
	return func(r *traces.Request) string {
		s.req.SourceFailed = r.SourceFailed
		s.setLengths(r, c)
		return e.rejectReason(&s)
	}
}

// Reserved is the tokens a static batch reserves for r under c, and the
// token budget counts: prompt + max_new (within max_model_len), as the
// simulator sets the lengths.
func (c *Config) Reserved(r *traces.Request) int64 {
	var s seq
	s.setLengths(r, c)
	return int64(s.prompt) + int64(s.maxNew)
}

func (e *engine) newSeq(r *traces.Request, idx, arrival int64) *seq {
	var s *seq
	if n := len(e.pool); n > 0 {
		s = e.pool[n-1]
		e.pool = e.pool[:n-1]
	} else {
		s = &seq{}
	}
	hb, keys, shared, dupOf := s.hashBuf, s.keys, s.shared, s.dupOf
	*s = seq{hashBuf: hb, keys: keys[:0], shared: shared[:0], dupOf: dupOf[:0], hidx: -1, slot: -1}
	s.req = *r
	s.req.FailTime = traces.Missing // a live run's: finish and reject set every other observation
	s.hashBuf = append(s.hashBuf[:0], r.PrefixHashes...)
	s.req.PrefixHashes = s.hashBuf
	s.idx = idx
	s.arrival, s.origin = arrival, arrival
	if e.originAtIssue {
		s.origin = r.ScheduledSend // runClosed and runSessions set it to the issue
	}
	s.setLengths(r, e.cfg)
	s.target = s.prompt
	s.start, s.first, s.last = traces.Missing, traces.Missing, traces.Missing
	if e.cfg.PrefixCaching || e.cells != nil {
		s.computeKeys(e.bs, e.hashBS)
	}
	return s
}

// checkStep verifies block conservation when Config.CheckInvariants is set.
func (e *engine) checkStep() error {
	if !e.cfg.CheckInvariants {
		return nil
	}
	if err := e.bm.check(); err != nil {
		return fmt.Errorf("sim: after step %d: %w", e.g, err)
	}
	var priv int64
	if cap(e.checkRefs) < len(e.bm.slab) {
		e.checkRefs = make([]int32, len(e.bm.slab))
	}
	refs := e.checkRefs[:len(e.bm.slab)]
	clear(refs)
	n, distinct := 0, 0
	for s := e.runHead; s != nil; s = s.next {
		n++
		p := e.heldPrivate(s)
		if p < 0 {
			return fmt.Errorf("sim: after step %d: request %d holds %d private blocks", e.g, s.idx, p)
		}
		priv += p
		for _, b := range s.shared {
			if refs[b] == 0 {
				distinct++
			}
			refs[b]++
		}
	}
	if n != e.nRunning {
		return fmt.Errorf("sim: after step %d: running list has %d requests, counter says %d", e.g, n, e.nRunning)
	}
	if priv != int64(e.bm.private) {
		return fmt.Errorf("sim: after step %d: running requests hold %d private blocks, manager says %d", e.g, priv, e.bm.private)
	}
	for b, c := range refs {
		if c > 0 && e.bm.slab[b].ref != c {
			return fmt.Errorf("sim: after step %d: cached block %d referenced by %d requests, refcount %d", e.g, b, c, e.bm.slab[b].ref)
		}
	}
	if distinct != e.bm.inUse {
		return fmt.Errorf("sim: after step %d: %d cached blocks referenced, manager says %d", e.g, distinct, e.bm.inUse)
	}
	return nil
}

// peekPrefix looks up waiting s in the prefix cache without taking
// anything: hit leading blocks cached (ev of them at refcount 0, so taking
// them uses free blocks) out of looked eligible. At least one prompt token
// is always computed, so the last block of a fully cached prompt is not
// eligible.
func (e *engine) peekPrefix(s *seq) (hit, looked, ev int) {
	if !e.cfg.PrefixCaching || len(s.keys) == 0 || s.computed != 0 {
		return 0, 0, 0
	}
	if s.peekGen == e.bm.gen+1 {
		return s.peekHit, s.peekLooked, s.peekEv
	}
	looked = min(len(s.keys), int((s.target-1)/int32(e.bs)))
	hit, ev = e.bm.peek(s.keys[:looked])
	s.peekGen, s.peekHit, s.peekLooked, s.peekEv = e.bm.gen+1, hit, looked, ev
	return hit, looked, ev
}

// slotHit is the prompt tokens waiting s would find in the slot the slot
// cache gives it now (its prompt cache), without taking the slot.
func (e *engine) slotHit(s *seq) int32 {
	if e.cells == nil || s.slot >= 0 || s.computed != 0 {
		return 0
	}
	if s.slotGen != e.cells.gen+1 {
		_, cached := e.cells.Peek(s.target, s.keys, e.bs)
		s.slotGen, s.slotCached = e.cells.gen+1, cached
	}
	return s.slotCached
}

// startPrefill admits s with hit cached blocks and its first chunk.
func (e *engine) startPrefill(s *seq, hit, looked int, chunk int32) error {
	// Warm-up rows stay out of the figures; so does a preempted request's
	// recompute, as vLLM's prefix cache counters leave resumed requests
	// out: it would mostly hit its own generated blocks.
	if !s.req.Warmup && s.preempts == 0 {
		e.bm.lookups += int64(looked)
		e.bm.hits += int64(hit)
	}
	for i := 0; i < hit; i++ {
		slot, _, err := e.bm.acquire(s.keys[i])
		if err != nil {
			return err
		}
		s.shared = append(s.shared, slot)
	}
	s.computed = int32(hit * e.bs)
	if e.cells != nil && s.slot < 0 {
		// The slot's prompt cache holds the prefix it shares with s:
		// only the rest is computed. (fit sized chunk for this already;
		// a static batch passes the whole prompt.)
		slot, cached := e.cells.Take(s.target, s.keys, e.bs)
		s.slot = int32(slot)
		if slot >= 0 && s.computed < cached {
			chunk = max(1, min(chunk, s.target-cached))
			s.computed = cached
		}
	}
	if s.start == traces.Missing {
		s.cached = s.computed
	}
	if err := e.growPrefill(s, s.computed+chunk); err != nil {
		return err
	}
	s.chunk = chunk
	e.admit(s)
	return nil
}

// compactPre drops preempted requests from the prefill list.
func (e *engine) compactPre() {
	j := 0
	for _, s := range e.pre {
		if s.state == stRunning {
			e.pre[j] = s
			j++
		}
	}
	clear(e.pre[j:])
	e.pre = e.pre[:j]
}
