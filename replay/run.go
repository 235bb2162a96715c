package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servesim/servesim/traces"
)

// job is one row on its way through the run.
type job struct {
	idx  int
	req  *traces.Request // a clone, owned by the run
	body []byte
	// capWait is how late the concurrency cap made the send (open loop):
	// part of its schedule lag, but not the client's lateness.
	capWait time.Duration
	// sessionHold is how long SessionWait held the send past its due time
	// for the previous turn of its session (open loop): its scheduled send
	// moves with it, so the hold is not schedule lag.
	sessionHold time.Duration
	// shortPrompt: the row's prompt_tokens are below the overhead and one
	// byte of text, so its prompt was sent longer than the trace says.
	shortPrompt bool
}

// Run replays the rows of in against cfg.BaseURL once and writes each sent
// row, with its observed columns filled, to out in completion order. A row
// the source trace marks failed is not sent but written as the simulator
// rejects it (Summary.SourceFailed counts them). Times
// are ns from the run's start (trace time 0); in open loop a row is due at
// Arrival × TimeScale. If out implements traces.Flusher, rows are flushed
// every cfg.FlushEvery. Run does not close in or out.
//
// When cfg.Text is zero, Run first calibrates it (Calibrate). Request
// failures never stop a run: they are recorded in the row and counted in
// the Summary. Run returns an error for invalid configuration, a failed
// calibration, a trace read error, or a write error; when ctx is cancelled
// it stops sending, lets in-flight requests end as "canceled", and returns
// the summary so far with ctx's error.
func Run(ctx context.Context, cfg Config, in traces.Reader, out traces.Writer) (*Summary, error) {
	return run(ctx, cfg, in, out, nil)
}

// run is Run with a hook told the input index of each row written, and the
// row as written.
func run(ctx context.Context, cfg Config, in traces.Reader, out traces.Writer, onWrite func(idx int, r *traces.Request)) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.SaveRaw != "" {
		if err := os.MkdirAll(cfg.SaveRaw, 0o755); err != nil {
			return nil, fmt.Errorf("replay: SaveRaw: %w", err)
		}
	}
	c, err := newClient(&cfg, cfg.SaveRaw)
	if err != nil {
		return nil, err
	}
	defer c.close()
	var warnings []string
	if cfg.Text.IsZero() {
		tm, err := calibrate(ctx, c)
		if err != nil {
			return nil, err
		}
		tm.Prefix = cfg.Text.Prefix // given on its own: kept
		cfg.Text = tm
	}
	blockSize := cfg.BlockSize
	if blockSize == 0 {
		blockSize = in.Meta().BlockSize
	}
	salt := cfg.Salt
	if salt == 0 {
		salt = rand.Uint64() | 1
	}
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)

	// Stage 1: read and prepare rows ahead of their send times. Stage 3's
	// channel is made here, as rows the source marks failed go straight to it.
	jobs := make(chan *job, 256)
	results := make(chan *job, 4096)
	var readErr error
	var hashWarn bool
	dropped := 0 // a row read, then not handed over: the run stopped, or it cannot be scheduled
	go func() {
		defer close(jobs)
		pb := NewPromptBuilder(cfg.Text, blockSize, salt)
		var prompt []byte
		for i := 0; in.Next(); i++ {
			r := in.At().Clone()
			r.ClearObserved()
			if cfg.Arrival == Open && float64(r.Arrival)*cfg.TimeScale > maxSchedule {
				readErr = fmt.Errorf("replay: row %d (%s): arrival %v × time scale %v is past 2^32 s, the latest time a trace holds; lower the time scale (time_scale)",
					i+1, r.ID, time.Duration(r.Arrival), cfg.TimeScale)
				dropped = 1
				return
			}
			if r.SourceFailed {
				// Written unsent, not queued: no client slot or send time
				// goes to a row the simulator never serves.
				markSourceFailed(r, &cfg)
				results <- &job{idx: i, req: r}
				continue
			}
			if blockSize == 0 && len(r.PrefixHashes) > 0 {
				hashWarn = true
			}
			prompt = pb.Build(prompt[:0], i, r)
			j := &job{idx: i, req: r, body: c.body(prompt, int(r.OutputTokens)), shortPrompt: cfg.Text.tooShort(int(r.PromptTokens))}
			select {
			case jobs <- j:
			case <-runCtx.Done():
				dropped = 1
				return
			}
		}
		readErr = in.Err()
	}()

	// Stage 3: write and count completed rows, and rows never sent as the
	// source trace marks them failed (closed once stage 1 has returned).
	col := newCollector(cfg.SLO)
	var writeErr error
	written := make(chan struct{})
	go func() {
		defer close(written)
		fl, _ := out.(traces.Flusher)
		tick := time.NewTicker(cfg.FlushEvery)
		defer tick.Stop()
		dirty := false
		flush := func() {
			if fl != nil && dirty && writeErr == nil {
				if err := fl.Flush(); err != nil {
					writeErr = fmt.Errorf("replay: flushing output: %w", err)
					stop(writeErr)
				}
			}
			dirty = false
		}
		write := func(j *job) {
			if err := out.Write(j.req); err != nil {
				writeErr = fmt.Errorf("replay: writing output: %w", err)
				stop(writeErr)
				return
			}
			dirty = true
			if onWrite != nil {
				onWrite(j.idx, j.req)
			}
		}
		for {
			select {
			case j, ok := <-results:
				if !ok {
					flush()
					return
				}
				if writeErr == nil {
					write(j)
				}
				// Counted whether written or not: the summary accounts
				// for every row read.
				if j.req.SourceFailed {
					col.s.SourceFailed++
					continue
				}
				col.addWaited(j.req, j.capWait)
				col.addHold(j.req, j.sessionHold)
				if j.shortPrompt && !j.req.Warmup {
					col.s.ShortPrompt++
				}
			case <-tick.C:
				flush()
			}
		}
	}()

	// Stage 2: send.
	var wg sync.WaitGroup
	send := func(start time.Time, j *job, cl *call) {
		c.send(runCtx, start, j.idx, j.req, cl)
		j.body = nil
		results <- j
	}
	notSent := 0
	var taken atomic.Int64      // closed loop: rows taken from the queue after the run stopped
	var heldUnsent atomic.Int64 // open loop: turns SessionWait held until the run stopped
	var origin time.Time        // trace time 0, for the summary
	if cfg.Arrival == Closed {
		start := time.Now()
		origin = start
		client := func(j *job) {
			defer wg.Done()
			for {
				j.req.ScheduledSend = int64(time.Since(start))
				send(start, j, c.prepare(runCtx, time.Now(), j.body))
				if runCtx.Err() != nil {
					return
				}
				var ok bool
				if j, ok = <-jobs; !ok {
					return
				}
				if runCtx.Err() != nil {
					taken.Add(1)
					return
				}
			}
		}
		// A client starts with its first row: clients beyond the trace's
		// rows cost nothing (2^40 of them took for ever to start).
		for range cfg.Concurrency {
			j, ok := <-jobs
			if !ok {
				break
			}
			if runCtx.Err() != nil {
				taken.Add(1)
				break
			}
			wg.Add(1)
			go client(j)
		}
	} else {
		var sem chan struct{}
		if cfg.Concurrency > 0 {
			sem = make(chan struct{}, cfg.Concurrency)
		}
		var turns *sessionTurns
		if cfg.SessionWait {
			turns = newSessionTurns()
		}
		var start time.Time
		// sendHeld sends j, due at due, once the previous turn of its
		// session has ended (prev closed), then closes ended: in the
		// goroutine the row gets anyway, so the loop goes on to rows of
		// other sessions meanwhile. A held turn takes no concurrency slot
		// while it waits.
		sendHeld := func(j *job, due time.Time, prev, ended *turnEnd) {
			defer wg.Done()
			defer ended.end()
			select {
			case <-prev.done:
			case <-runCtx.Done():
			}
			if runCtx.Err() != nil {
				heldUnsent.Add(1)
				return
			}
			heldWoke()
			// Released at the previous turn's end, as a turn the loop
			// reaches late is: the time this goroutine took to run after
			// it is the client's lag, not the session's hold.
			released := prev.at
			if released.Before(due) { // ended as the loop looked, by its due time
				released = due
			}
			j.sessionHold = released.Sub(due)
			j.req.ScheduledSend = int64(released.Sub(start))
			if sem != nil {
				select {
				case sem <- struct{}{}:
				default:
					woke := time.Now()
					select {
					case sem <- struct{}{}:
						j.capWait = time.Since(woke)
					case <-runCtx.Done():
						heldUnsent.Add(1)
						return
					}
				}
				// Deferred after ended.end(), so it runs first: as in
				// endTurn, the slot is free before the next turn goes.
				defer func() { <-sem }()
			}
			send(start, j, c.prepare(runCtx, time.Now(), j.body))
		}
		// When the last wait for a slot ended: a row due before it was held
		// back by the cap, directly or behind the rows that waited.
		var capFreed time.Time
		pace := newPacer()
	loop:
		for j := range jobs {
			if start.IsZero() {
				start = time.Now() // the first row is prepared: trace time 0 is now
				origin = start
			}
			sched := time.Duration(math.Round(float64(j.req.Arrival) * cfg.TimeScale))
			j.req.ScheduledSend = int64(sched)
			due := start.Add(sched)
			cl := c.prepare(runCtx, due, j.body)
			if pace.waitUntil(runCtx, due) != nil {
				cl.cancel()
				notSent++
				break
			}
			prev, ended := turns.next(j.req.SessionID, due)
			if prev != nil && !prev.ended() {
				cl.cancel()
				wg.Add(1)
				go sendHeld(j, due, prev, ended)
				continue
			}
			// The previous turn ended after this one was due, while the
			// loop ran late: until then the session held it, as a held
			// turn's scheduled send is when it was released. Only the
			// rest is schedule lag.
			if prev != nil && prev.at.After(due) {
				j.sessionHold = prev.at.Sub(due)
				due = prev.at
				j.req.ScheduledSend = int64(due.Sub(start))
				cl.cancel()
				cl = c.prepare(runCtx, due, j.body)
			}
			if sem != nil {
				select {
				case sem <- struct{}{}:
				default:
					select {
					case sem <- struct{}{}:
						capFreed = time.Now()
					case <-runCtx.Done():
						cl.cancel()
						notSent++
						break loop
					}
				}
			}
			// Held back by the cap, waiting itself or behind the rows that
			// waited: its timeout runs from when it goes, not from when it
			// was due, and the summary counts it among the cap's waits.
			if capFreed.After(due) {
				j.capWait = capFreed.Sub(due)
				cl.cancel()
				cl = c.prepare(runCtx, time.Now(), j.body)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				send(start, j, cl)
				endTurn(sem, ended)
			}()
			// Let the sender run now, on this processor, rather than after
			// another thread wakes up to steal it: that hand-off alone costs
			// tens of microseconds of schedule lag.
			runtime.Gosched()
		}
	}
	wg.Wait()
	notSent += int(taken.Load() + heldUnsent.Load())
	// Count rows prepared but never sent because the run stopped early.
	for range jobs {
		notSent++
	}
	notSent += dropped // read after jobs closed: the reader has returned
	close(results)
	<-written
	col.origin = origin
	s := col.summary()
	s.Text = cfg.Text
	s.NotSent = notSent
	s.SessionWait = cfg.SessionWait
	if hashWarn {
		warnings = append(warnings, "rows have prefix_hashes but no block size is known (trace meta block_size = 0, Config.BlockSize = 0): prompts were made unique instead")
	}
	if n := c.rawFailed.Load(); n > 0 {
		bodies := "raw bodies were"
		if n == 1 {
			bodies = "raw body was"
		}
		warnings = append(warnings, fmt.Sprintf("%d %s not saved to %s (save_raw), the first: %v", n, bodies, cfg.SaveRaw, *c.rawFirstErr.Load()))
	}
	s.Warnings = append(s.Warnings, warnings...)
	err = errors.Join(writeErr, readErr)
	// Read once: an interrupt that lands now found every row done. After a
	// write or read error, which lost rows, the run failed instead.
	if err == nil && ctx.Err() != nil {
		err, s.Interrupted = ctx.Err(), true
	}
	return s, err
}

// sessionTurns maps each session to the end of its latest turn sent
// (SessionWait). nil holds no session.
type sessionTurns struct {
	last map[string]*turnEnd
	// sweepAt: once last holds this many sessions, those whose latest
	// turn ended by the due time of the row being sent are dropped (a
	// next turn of theirs, due no earlier, is neither held nor late for
	// it), so the map keeps the sessions in flight, not every session of
	// the run.
	sweepAt int
}

// minSessionSweep is the fewest sessions kept before a sweep.
const minSessionSweep = 1024

func newSessionTurns() *sessionTurns {
	return &sessionTurns{last: map[string]*turnEnd{}, sweepAt: minSessionSweep}
}

// next makes the channel of the session's turn due at due, ended, and
// returns it with the previous turn's end (nil for a session's first
// turn). Rows come in arrival order, so due never goes back. A row of no
// session, or a nil sessionTurns, gets neither.
func (t *sessionTurns) next(session string, due time.Time) (prev, ended *turnEnd) {
	if t == nil || session == "" {
		return nil, nil
	}
	prev, ended = t.last[session], &turnEnd{done: make(chan struct{})}
	t.last[session] = ended
	if len(t.last) >= t.sweepAt {
		t.sweep(due)
	}
	return prev, ended
}

// sweep drops the sessions whose latest turn ended by due. One that ended
// later stays: a next turn of it due before that end, which the send loop
// reaches late, counts the wait as a hold only while the end is known.
// The next sweep waits for the map to double what is left, so sweeping
// costs a constant time per turn however many sessions stay in flight.
func (t *sessionTurns) sweep(due time.Time) {
	for session, ended := range t.last {
		if ended.ended() && !ended.at.After(due) {
			delete(t.last, session)
		}
	}
	t.sweepAt = max(minSessionSweep, 2*len(t.last))
}

// sourceFailedError is the error of a row the source trace marks failed,
// worded as the simulator's rejection of it.
const sourceFailedError = "rejected: " + traces.SourceFailedReason

// markSourceFailed leaves r, which the source trace marks failed, as the
// simulator writes it: rejected on arrival, unmeasured. In open loop it
// keeps the time it was due, as the simulator keeps its arrival.
func markSourceFailed(r *traces.Request, cfg *Config) {
	if cfg.Arrival == Open {
		r.ScheduledSend = int64(math.Round(float64(r.Arrival) * cfg.TimeScale))
	}
	r.Error = sourceFailedError
}

// Calibrate fits cfg.Endpoint's text model against the server: it sends
// three probe requests (64, 512 and 2048 bytes of prompt text,
// max_tokens=1) and fits usage.prompt_tokens = a × bytes + b by least
// squares. Probes are not part of any run.
func Calibrate(ctx context.Context, cfg Config) (TextModel, error) {
	cfg.Text = TextModel{TokensPerByte: 1} // satisfy Validate; not used
	if err := cfg.Validate(); err != nil {
		return TextModel{}, err
	}
	c, err := newClient(&cfg, "")
	if err != nil {
		return TextModel{}, err
	}
	defer c.close()
	return calibrate(ctx, c)
}

// ProbeBytes are the prompt lengths Calibrate sends.
var ProbeBytes = []int{64, 512, 2048}

func calibrate(ctx context.Context, c *client) (TextModel, error) {
	var sx, sy, sxx, sxy float64
	salt := rand.Uint64()
	xs := make([]float64, len(ProbeBytes))
	ys := make([]float64, len(ProbeBytes))
	for i, n := range ProbeBytes {
		text := append([]byte(fmt.Sprintf("[probe %x]", salt&0xffffff)), make([]byte, 0, n)...)
		text = appendWords(text, n-len(text), salt+uint64(i))
		var r traces.Request
		r.Reset()
		r.ID, r.OutputTokens = fmt.Sprintf("probe-%d", n), 1
		c.do(ctx, time.Now(), -1-i, &r, c.body(text, 1))
		if r.Error != "" {
			return TextModel{}, fmt.Errorf("replay: calibrating the text model (probe of %d bytes): %s", n, r.Error)
		}
		if r.UsagePrompt == traces.Missing {
			return TextModel{}, fmt.Errorf("replay: calibrating the text model: probe of %d bytes: the usage block has no prompt_tokens", n)
		}
		if r.UsagePrompt <= 0 {
			return TextModel{}, fmt.Errorf("replay: calibrating the text model: probe of %d bytes: usage.prompt_tokens = %d", n, r.UsagePrompt)
		}
		x, y := float64(len(text)), float64(r.UsagePrompt)
		xs[i], ys[i] = x, y
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	k := float64(len(ProbeBytes))
	a := (k*sxy - sx*sy) / (k*sxx - sx*sx)
	b := (sy - a*sx) / k
	if !(a > 0) {
		return TextModel{}, fmt.Errorf("replay: calibrating the text model: prompt tokens do not grow with text (%v bytes → %v tokens)", xs, ys)
	}
	tm := TextModel{TokensPerByte: a, Overhead: b}
	if msg := tm.problem(); msg != "" {
		return TextModel{}, fmt.Errorf("replay: calibrating the text model: the fit tokens = %g × bytes + %g cannot be used (%v bytes → %v tokens): %s", a, b, xs, ys, msg)
	}
	return tm, nil
}

// endTurn ends a sent turn's claims: it frees its concurrency slot (sem
// nil: no cap) and only then closes ended, so the session's next turn,
// released by it, never finds the cap full with its own predecessor.
// ended nil: the row is of no session.
func endTurn(sem chan struct{}, ended *turnEnd) {
	if sem != nil {
		<-sem
	}
	if ended != nil {
		ended.end()
	}
}

// turnEnd is the end of a session's turn: done is closed once its request
// has ended, at at (set before, so read it only once done is closed).
type turnEnd struct {
	done chan struct{}
	at   time.Time
}

// end records that the turn has ended now.
func (e *turnEnd) end() {
	e.at = time.Now()
	close(e.done)
}

// ended says whether the turn has ended (then at is set).
func (e *turnEnd) ended() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// heldWoke runs when a held turn's goroutine wakes after the previous turn
// of its session ended (a test delays it to show what is measured from).
var heldWoke = func() {}
