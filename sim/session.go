package sim

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"time"

	"github.com/servesim/servesim/traces"
)

// SessionWait holds the turns of a conversation: a row with a non-empty
// SessionID is not sent before the previous row of its session (in input
// order) has ended, as a live open-loop replay with session waiting sends
// it. The first turn of a session, rows without a session and rows the
// source trace marks failed (never sent live) keep their arrival.
type SessionWait struct {
	// IssueGap is a live client's turnaround: a held turn reaches the
	// engine this long after its previous turn ended, unless its own
	// arrival is later. At most MaxIssueGap.
	IssueGap time.Duration
}

// RunSessionWait simulates cfg over the requests of in, taken at their
// arrivals (which must not decrease) except that a turn whose session's
// previous turn has not ended by its arrival is held: it is issued when
// that turn ends (completes, is rejected, or is answered at once as a
// refused arrival) and reaches the engine wait.IssueGap later.
//
// Output rows (one per request, in input order, to out when it is not
// nil) keep the trace's Arrival, so they stay in arrival order, and carry
// in ScheduledSend when the request was issued: its arrival, or for a held
// turn the end of its previous turn. Queue time, TTFT and E2E are measured
// from the issue, as a live run measures them from its ScheduledSend.
// Everything else is as in RunClosedLoop, whose engine loop this shares:
// the Summary is returned even when err is not nil, a static policy that
// runs out of KV memory ends the run with an *OOMError (the requests it
// did not serve get rows marked not run, a held turn due at the later of
// its arrival and the time the run stopped), and in and out are not
// closed.
func RunSessionWait(ctx context.Context, cfg Config, wait SessionWait, in traces.Reader, out traces.Writer) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkIssueGap("RunSessionWait", wait.IssueGap); err != nil {
		return nil, err
	}
	if in == nil {
		return nil, errors.New("sim: RunSessionWait: nil input reader")
	}
	rows := newRowOrder(out)
	e := newEngine(&cfg, in.Meta(), rows)
	e.m.reserve(in)
	w := newSessionWaiter(e, in, int64(wait.IssueGap))
	err := e.runSessions(ctx, w)
	unarrived, err := finishRun(err, rows, []*engine{e}, w.leftover(e))
	e.m.measured.requests += unarrived
	return e.summary(), err
}

// newSessionWaiter is the waiter that hands in's rows to e, issuing a
// held turn gap after its previous turn's end.
func newSessionWaiter(e *engine, in traces.Reader, gap int64) *sessionWaiter {
	w := &sessionWaiter{a: arrivals{in: in}, gap: gap, sessions: map[string]*session{}}
	// A held turn's latencies start at its issue, before it reaches the
	// engine, where a row of another session may get first: the window
	// opens at the issue. The issue is a turn's end, which the engine's
	// clock has passed.
	w.held = func(r *traces.Request) { e.m.issued(r, r.ScheduledSend, e.now) }
	return w
}

// turn is a request read from the input and not yet handed to the
// engine: its row (Arrival the trace's, ScheduledSend its issue once
// issued), its input index, and when it reaches the engine.
type turn struct {
	req     traces.Request
	idx     int64
	arrival int64
	hashBuf []uint64 // req.PrefixHashes' storage, kept when the turn is reused
}

// turnEnd is the end of a session's turn: when its request completed or
// was refused.
type turnEnd struct {
	session string
	at      int64
}

// session is what the waiter knows of one session's turns.
type session struct {
	open  bool    // a turn is issued and has not ended
	endAt int64   // when its last turn ended, while none is open
	held  []*turn // turns waiting for the open one, in input order
}

// sessionWaiter decides when each request of a session-waiting run
// reaches the engine.
type sessionWaiter struct {
	a        arrivals // a.inHand: the row read last, until its arrival comes
	readAll  bool
	gap      int64
	due      turnHeap // issued, not yet handed to the engine
	sessions map[string]*session
	spare    []*turn // turns the engine was handed, to reuse
	// spareSessions are sessions whose turns all ended, to reuse.
	spareSessions []*session
	// closing names sessions whose last turn ended after the arrival of
	// the row read last: a row yet to come may arrive before that end and
	// wait for it, so they are dropped once a row arrives after it.
	closing []string
	row     traces.Request // an unheld row as handed to the engine
	// held is told of each turn issued after its arrival, at the end of
	// its session's previous turn.
	held func(r *traces.Request)
}

// read makes sure the next input row is in hand, unless the input ended.
func (w *sessionWaiter) read() error {
	if w.a.inHand != nil || w.readAll {
		return nil
	}
	r, err := w.a.next()
	if err != nil {
		return err
	}
	w.a.inHand = r
	w.readAll = r == nil
	if r != nil {
		w.dropClosed()
	}
	return nil
}

// dropClosed drops the sessions in closing whose last turn ended by the
// arrival of the row read last.
func (w *sessionWaiter) dropClosed() {
	j := 0
	for _, id := range w.closing {
		s := w.sessions[id]
		switch {
		case s == nil || s.open: // its open turn's end decides
		case s.endAt <= w.a.last:
			w.drop(id, s)
		default:
			w.closing[j] = id
			j++
		}
	}
	clear(w.closing[j:])
	w.closing = w.closing[:j]
}

// drop forgets session id, none of whose turns is open or held, keeping
// s to reuse.
func (w *sessionWaiter) drop(id string, s *session) {
	delete(w.sessions, id)
	w.spareSessions = append(w.spareSessions, s)
}

// take issues the row in hand, whose arrival has come, or holds it behind
// its session's open turn. A row issued at its arrival is returned, to be
// handed to the engine at once without a copy: the loop takes it once no
// issued turn is due by then, so turns still reach the engine in order.
// A held row is copied, the reader reusing its row.
func (w *sessionWaiter) take() *traces.Request {
	r := w.a.inHand
	w.a.inHand = nil
	prevEnd := int64(-1)
	if ChainedTurn(r) {
		s := w.sessions[r.SessionID]
		switch {
		case s == nil:
			w.open(r.SessionID)
		case s.open:
			s.held = append(s.held, w.newTurn(r))
			return nil
		default:
			s.open, prevEnd = true, s.endAt
		}
	}
	if prevEnd <= r.Arrival {
		w.row = *r // the reader's row is left alone; the engine copies the hashes
		w.row.ScheduledSend = r.Arrival
		return &w.row
	}
	w.issue(w.newTurn(r), prevEnd)
	return nil
}

// newTurn copies r, the row in hand, into a turn, reusing one the engine
// was handed.
func (w *sessionWaiter) newTurn(r *traces.Request) *turn {
	var t *turn
	if n := len(w.spare); n > 0 {
		t, w.spare = w.spare[n-1], w.spare[:n-1]
	} else {
		t = &turn{}
	}
	t.req, t.idx = *r, w.a.n-1 // the reader reuses its row
	t.req.PrefixHashes = nil
	if r.PrefixHashes != nil {
		t.hashBuf = append(t.hashBuf[:0], r.PrefixHashes...)
		t.req.PrefixHashes = t.hashBuf
	}
	return t
}

// open records the first turn of a session, issued, reusing a session
// that ended.
func (w *sessionWaiter) open(id string) {
	n := len(w.spareSessions)
	if n == 0 {
		w.sessions[id] = &session{open: true}
		return
	}
	s := w.spareSessions[n-1]
	w.spareSessions = w.spareSessions[:n-1]
	*s = session{open: true, held: s.held[:0]}
	w.sessions[id] = s
}

// dueBy says whether an issued turn reaches the engine by t.
func (w *sessionWaiter) dueBy(t int64) bool {
	return len(w.due) > 0 && w.due[0].arrival <= t
}

// heldNow says whether r waits behind its session's open turn.
func (w *sessionWaiter) heldNow(r *traces.Request) bool {
	if !ChainedTurn(r) { // called twice a loop: skip the map lookup where it cannot hold
		return false
	}
	s := w.sessions[r.SessionID]
	return s != nil && s.open
}

// ChainedTurn says whether r is one of its session's turns that wait for
// each other under SessionWait: a row the source trace marks failed is
// never sent live, so it keeps its arrival and holds no later turn.
func ChainedTurn(r *traces.Request) bool {
	return r.SessionID != "" && !r.SourceFailed
}

// endTurns releases the turns that the ends by cut release, and returns
// the later ends, still to release theirs.
func (w *sessionWaiter) endTurns(ends []turnEnd, cut int64) []turnEnd {
	j := 0
	for _, end := range ends {
		if end.at > cut {
			ends[j] = end
			j++
			continue
		}
		w.ended(end)
	}
	return ends[:j]
}

// ended releases the next turn of the session whose turn ended.
func (w *sessionWaiter) ended(end turnEnd) {
	s := w.sessions[end.session]
	if len(s.held) == 0 {
		s.open, s.endAt = false, end.at
		if end.at <= w.a.last { // every later row arrives after it ends
			w.drop(end.session, s)
		} else {
			w.closing = append(w.closing, end.session)
		}
		return
	}
	t := s.held[0]
	n := copy(s.held, s.held[1:]) // few are held at once: keep the slice's room
	s.held[n] = nil
	s.held = s.held[:n]
	w.issue(t, end.at)
}

// issue schedules t, whose session's previous turn ended at prevEnd (-1:
// none): a turn still waiting at its arrival goes out when that turn
// ends and reaches the engine one gap later.
func (w *sessionWaiter) issue(t *turn, prevEnd int64) {
	t.req.ScheduledSend, t.arrival = t.req.Arrival, t.req.Arrival
	if prevEnd > t.req.Arrival {
		t.req.ScheduledSend, t.arrival = prevEnd, prevEnd+w.gap
		w.held(&t.req)
	}
	heap.Push(&w.due, t)
}

// runSessions is RunSessionWait's event loop, RunClosedLoop's with issue
// times that come from the input and the ends of sessions' turns.
func (e *engine) runSessions(ctx context.Context, w *sessionWaiter) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Issues depend on completions: every arrival cuts a decode stretch,
	// and latencies start at the issue (ScheduledSend).
	e.cutAtArrivals, e.originAtIssue = true, true
	e.trackEnds = true
	for loops := 0; ; loops++ {
		if loops&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := w.read(); err != nil {
			return err
		}
		// A row that arrived during the step that ended turns reached
		// the engine before their next turns were issued: it goes first,
		// so that the window opens at its arrival. Those ends release
		// none due by then. A held row is cut there too: releasing the
		// later ends would issue turns before the rows read after it,
		// which may arrive before those issues.
		cut := int64(math.MaxInt64)
		if r := w.a.inHand; r != nil && e.next >= r.Arrival {
			cut = r.Arrival
		}
		e.ends = w.endTurns(e.ends, cut)
		// The row in hand goes first: whether its session's previous
		// turn ended by its arrival is known once the engine got there,
		// unless that turn is still open: then the row waits for its end
		// whenever it arrives, and its arrival cuts no iteration.
		if r := w.a.inHand; r != nil && (w.heldNow(r) || e.next >= r.Arrival && !w.dueBy(r.Arrival)) {
			if now := w.take(); now != nil {
				if err := e.addAt(now, w.a.n-1, now.Arrival); err != nil {
					return err
				}
			}
			continue
		}
		if len(w.due) > 0 && e.next >= w.due[0].arrival {
			t := heap.Pop(&w.due).(*turn)
			if err := e.addAt(&t.req, t.idx, t.arrival); err != nil {
				return err
			}
			w.spare = append(w.spare, t) // the engine keeps a copy
			continue
		}
		if w.a.inHand == nil && len(w.due) == 0 && e.next == math.MaxInt64 { // idle with nothing waiting: done
			return nil
		}
		// One iteration, cut before the next arrival.
		t := int64(math.MaxInt64)
		if r := w.a.inHand; r != nil {
			t = r.Arrival
		}
		if len(w.due) > 0 {
			t = min(t, w.due[0].arrival)
		}
		if err := e.iterate(t, math.MaxInt64); err != nil {
			return err
		}
	}
}

// leftover writes a row marked not run for every request of a
// session-waiting run stopped on e that it had not handed the engine:
// those issued (due at their issue), those held (due at the later of
// their arrival and the time the run stopped), and those never taken,
// which keep their arrival. It returns the measured ones among them.
func (w *sessionWaiter) leftover(e *engine) leftover {
	return func(out *rowOrder, reason string) (unarrived int64, _ error) {
		var row traces.Request
		notRun := func(t *turn, issued int64) error {
			if !t.req.Warmup { // never arrived, yet one of the run's requests, as its row is
				unarrived++
			}
			return out.putNotRun(t.idx, &row, &t.req, issued, reason)
		}
		for _, t := range w.due {
			if err := notRun(t, t.req.ScheduledSend); err != nil {
				return 0, err
			}
		}
		for _, s := range w.sessions {
			for _, t := range s.held {
				if err := notRun(t, max(t.req.Arrival, e.now)); err != nil {
					return 0, err
				}
			}
		}
		// The rows never taken are due as take would have issued them:
		// one behind an open turn of its session (or behind an earlier
		// row of it never taken) waits for the run's stop.
		r := w.a.inHand
		w.a.inHand = nil
		for {
			if r == nil {
				var err error
				if r, err = w.a.next(); err != nil || r == nil {
					return unarrived, err
				}
			}
			issued := r.Arrival
			if w.heldNow(r) {
				issued = max(r.Arrival, e.now)
			} else if ChainedTurn(r) {
				w.open(r.SessionID)
			}
			if err := notRun(&turn{req: *r, idx: w.a.n - 1}, issued); err != nil {
				return 0, err
			}
			r = nil
		}
	}
}

// turnHeap orders issued turns by their arrival at the engine, then input
// order.
type turnHeap []*turn

func (h turnHeap) Len() int { return len(h) }
func (h turnHeap) Less(i, j int) bool {
	if h[i].arrival != h[j].arrival {
		return h[i].arrival < h[j].arrival
	}
	return h[i].idx < h[j].idx
}
func (h turnHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *turnHeap) Push(x any)   { *h = append(*h, x.(*turn)) }
func (h *turnHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}
