package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/servesim/servesim/traces"
)

// ClosedLoop is a closed loop of clients: each sends its next request as
// soon as its previous one has finished.
type ClosedLoop struct {
	Clients int
	// IssueGap is a live client's turnaround: the k-th request issued at
	// one instant (k from 0) reaches the engine (k+1) × IssueGap later,
	// and none reaches it before a request issued earlier (they go out one
	// at a time, in input order, IssueGap apart).
	// Live clients never send at exactly the same time, nor the instant
	// their previous request ends: an idle engine starts its step with
	// whichever request reaches it first and the others wait for the next
	// step, while a busy one runs a step before any of them arrives and
	// then takes them together. 0 issues them together, at once.
	IssueGap time.Duration
}

// MaxIssueGap bounds ClosedLoop.IssueGap and SessionWait.IssueGap: a
// client's turnaround, not a pause; issue times add it up, and a gap of
// hours wraps them past int64.
const MaxIssueGap = time.Minute

// checkIssueGap refuses a gap outside [0, MaxIssueGap] given to run.
func checkIssueGap(run string, gap time.Duration) error {
	if gap < 0 || gap > MaxIssueGap {
		return fmt.Errorf("sim: %s: issue gap = %v: want in [0, %v], a client's turnaround", run, gap, MaxIssueGap)
	}
	return nil
}

// RunClosedLoop simulates cfg under a closed loop of clients, the
// simulated counterpart of a live closed-loop run (replay.Closed).
// Requests are taken from in in input order; their Arrival is ignored.
// At time 0 the first loop.Clients requests are issued; after that,
// whenever a request completes (or is rejected), the next request of the
// input is issued, so request i+Clients goes out when some client's
// previous request completes. Requests reach the engine loop.IssueGap
// apart, the first of an instant one gap after it; no think time is added.
// Issues follow the clock: a request rejected on arrival during a step
// frees its client then, before the step's completions free theirs.
//
// Output rows (one per request, in input order, to out when it is not
// nil) carry in ScheduledSend the time the request was issued (its
// client's previous request ended) and in Arrival the time it reaches the
// engine (plus its share of IssueGap); queue time, TTFT and E2E are
// measured from the issue, as the live closed loop measures them from a
// client's pick-up (its ScheduledSend), and the window opens at the first
// issue, as the live one opens at the first ScheduledSend. Everything else
// is as in Run: the Summary is returned even when err is not nil, a static
// policy that runs out of KV memory ends the run with an *OOMError (the
// requests it did not serve get rows marked not run; those never issued
// carry the time the run stopped as their arrival), and in and out are not
// closed.
//
// RunClosedLoop drives the same engine as Run through its advance-to-time
// API, one iteration (a step, a pure-decode stretch, or an idle wait) at a
// time; a stretch is cut at the next issue, so event skipping stays exact.
func RunClosedLoop(ctx context.Context, cfg Config, loop ClosedLoop, in traces.Reader, out traces.Writer) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if loop.Clients < 1 {
		return nil, fmt.Errorf("sim: RunClosedLoop: clients = %d: want ≥ 1", loop.Clients)
	}
	if err := checkIssueGap("RunClosedLoop", loop.IssueGap); err != nil {
		return nil, err
	}
	if in == nil {
		return nil, errors.New("sim: RunClosedLoop: nil input reader")
	}
	rows := newRowOrder(out)
	e := newEngine(&cfg, in.Meta(), rows)
	e.m.reserve(in)
	left, err := e.runClosed(ctx, loop, in)
	unarrived, err := finishRun(err, rows, []*engine{e}, left)
	e.m.measured.requests += unarrived
	return e.summary(), err
}

// runClosed is RunClosedLoop's event loop. When an engine error stops it,
// it also returns what writes the rows of the requests it had not handed
// the engine; otherwise that is nil.
func (e *engine) runClosed(ctx context.Context, loop ClosedLoop, in traces.Reader) (leftover, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Issues depend on completions: every arrival cuts a decode stretch,
	// and latencies start at the issue (ScheduledSend).
	e.cutAtArrivals, e.originAtIssue = true, true
	free, freed := loop.Clients, e.finished
	var idx int64
	exhausted := false
	var pending []traces.Request // issued, not yet arrived, in arrival order
	lastArrival := int64(-1)     // of the request issued last
	var freedAt int64            // when the free clients were freed
	// issue has a client pick up the next request at the time at.
	issue := func(at int64) error {
		if !in.Next() {
			if err := in.Err(); err != nil {
				return fmt.Errorf("sim: reading requests: %w", err)
			}
			exhausted = true
			return nil
		}
		req := *in.At() // add copies it; the reader's row is left alone
		// After the requests issued before it, which may still be on
		// their way.
		req.Arrival = max(at, lastArrival) + int64(loop.IssueGap)
		lastArrival = req.Arrival
		// Latencies start here, when the client picks the request
		// up, as a live closed loop's do (its ScheduledSend).
		req.ScheduledSend = at
		e.m.issued(&req, at, e.now)
		req.PrefixHashes = slices.Clone(req.PrefixHashes)
		pending = append(pending, req)
		return nil
	}
	// arrive hands the engine the first request on its way, in input
	// order, and returns when it arrived.
	arrive := func() (int64, error) {
		arrival := pending[0].Arrival
		if err := e.add(&pending[0], idx); err != nil {
			return 0, err
		}
		idx++
		pending = pending[1:]
		return arrival, nil
	}
	// release frees, at the time at, the clients of the requests the
	// engine finished or rejected since the last release.
	release := func(at int64) {
		free += e.finished - freed
		freed, freedAt = e.finished, at
	}
	for loops := 0; ; loops++ {
		// Requests that reached the engine during the step that just
		// ended go first: one refused there freed its client at its
		// arrival, before the step freed the others, and that client's
		// next request is issued then, in time order.
		for len(pending) > 0 && pending[0].Arrival < freedAt && e.next >= pending[0].Arrival {
			arrival, err := arrive()
			if err != nil {
				return nil, err
			}
			for ; freed < e.finished && !exhausted; freed++ {
				if err := issue(arrival); err != nil {
					return nil, err
				}
			}
			freed = e.finished
		}
		// Issue a request for every free client, spaced from the others
		// issued at this instant.
		for ; free > 0 && !exhausted; free-- {
			if err := issue(freedAt); err != nil {
				return nil, err
			}
		}
		if loops&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(pending) > 0 && e.next >= pending[0].Arrival {
			arrival, err := arrive()
			if err != nil {
				return nil, err
			}
			if e.finished > freed {
				// Rejected as it arrived, as a live engine answers at
				// once, not when the step under way ends.
				release(arrival)
			}
			continue
		}
		if len(pending) == 0 && e.next == math.MaxInt64 { // idle with nothing waiting: done
			return nil, nil
		}
		// One iteration, cut before the next issue; with none due, a
		// decode stretch may run up to the next completion.
		t := int64(math.MaxInt64)
		if len(pending) > 0 {
			t = pending[0].Arrival
		}
		if err := e.iterate(t, math.MaxInt64); err != nil {
			return closedLeftover(in, pending, idx, max(e.now, lastArrival)), err
		}
		release(e.now)
	}
}

// closedLeftover writes a row marked not run for every request of a
// closed loop stopped at stop that it had not handed the engine: those
// issued and on their way (pending, the first of input index idx), and
// those never issued, which carry stop as their arrival. It returns the
// measured ones among them.
func closedLeftover(in traces.Reader, pending []traces.Request, idx, stop int64) leftover {
	return func(out *rowOrder, reason string) (unarrived int64, _ error) {
		var row traces.Request
		notRun := func(r *traces.Request, issued int64) error {
			if !r.Warmup { // never arrived, yet one of the run's requests, as its row is
				unarrived++
			}
			err := out.putNotRun(idx, &row, r, issued, reason)
			idx++
			return err
		}
		for i := range pending {
			if err := notRun(&pending[i], pending[i].ScheduledSend); err != nil { // runClosed set it to the issue
				return 0, err
			}
		}
		for in.Next() {
			q := *in.At()
			q.Arrival = stop
			if err := notRun(&q, stop); err != nil {
				return 0, err
			}
		}
		if err := in.Err(); err != nil {
			return 0, fmt.Errorf("sim: reading requests: %w", err)
		}
		return unarrived, nil
	}
}
