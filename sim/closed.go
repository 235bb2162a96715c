package sim

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/servesim/servesim/traces"
)

// RunClosedLoop simulates cfg under a closed loop of clients clients, the
// simulated counterpart of a live closed-loop run (replay.Closed): each
// client sends its next request as soon as its previous one has finished.
// Requests are taken from in in input order; their Arrival is ignored.
// At time 0 the first clients requests are issued; after that, whenever a
// request completes (or is rejected), the next request of the input is
// issued at that instant, so request i+clients goes out when some
// client's previous request completes. No think time and no client or
// network latency is added: a request issued at t can join the step that
// starts at t.
//
// Output rows (one per request, in completion order, to out when it is
// not nil) carry the simulated issue time in Arrival and ScheduledSend, so
// TTFT and E2E are measured from it, as the live closed loop measures them
// from when a client picked the row up. Everything else is as in Run: the
// Summary is returned even when err is not nil, a static policy that runs
// out of KV memory ends the run with an *OOMError, and in and out are not
// closed.
//
// RunClosedLoop drives the same engine as Run through its advance-to-time
// API, one iteration (a step, a pure-decode stretch, or an idle wait) at a
// time: a stretch always ends at the first completion, which is the only
// moment a new request can arrive, so event skipping stays exact.
func RunClosedLoop(ctx context.Context, cfg Config, clients int, in traces.Reader, out traces.Writer) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if clients < 1 {
		return nil, fmt.Errorf("sim: RunClosedLoop: clients = %d: want ≥ 1", clients)
	}
	if in == nil {
		return nil, errors.New("sim: RunClosedLoop: nil input reader")
	}
	cw := &closedWriter{out: out}
	e := newEngine(&cfg, in.Meta(), cw)
	err := e.runClosed(ctx, clients, in, cw)
	if ferr := e.log.flush(); err == nil && ferr != nil {
		err = fmt.Errorf("sim: writing decision log: %w", ferr)
	}
	if err == nil && e.m.checkErr != nil {
		err = e.m.checkErr
	}
	return e.summary(), err
}

// closedWriter passes finished rows on and counts them: each one frees a
// client.
type closedWriter struct {
	out  traces.Writer
	done int
}

func (w *closedWriter) Write(r *traces.Request) error {
	w.done++
	if w.out == nil {
		return nil
	}
	return w.out.Write(r)
}

func (w *closedWriter) Close() error { return nil }
func (w *closedWriter) Abort()       {}

// take returns the number of clients freed since the last call.
func (w *closedWriter) take() int {
	n := w.done
	w.done = 0
	return n
}

// runClosed is RunClosedLoop's event loop.
func (e *engine) runClosed(ctx context.Context, clients int, in traces.Reader, cw *closedWriter) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	free := clients
	var idx int64
	exhausted := false
	var req traces.Request
	for loops := 0; ; loops++ {
		// Issue a request for every free client, at the current time.
		for free > 0 && !exhausted {
			if !in.Next() {
				if err := in.Err(); err != nil {
					return fmt.Errorf("sim: reading requests: %w", err)
				}
				exhausted = true
				break
			}
			req = *in.At() // add copies it; the reader's row is left alone
			req.Arrival = e.now
			free--
			if err := e.add(&req, idx); err != nil {
				return err
			}
			idx++
			free += cw.take() // a rejection frees its client at once
		}
		if e.next == math.MaxInt64 { // idle with nothing waiting: done
			return nil
		}
		if loops&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		// One iteration; with no arrival due before the next completion,
		// a decode stretch may run up to that completion.
		if err := e.iterate(math.MaxInt64); err != nil {
			return err
		}
		free += cw.take()
	}
}
