package replay

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// countingReader counts the rows read.
type countingReader struct {
	sliceReader
	read atomic.Int64
}

func (r *countingReader) Next() bool {
	ok := r.sliceReader.Next()
	if ok {
		r.read.Add(1)
	}
	return ok
}

// An interrupted run accounts for every row it read: sent or not sent,
// the row the reader was handing over when the run stopped included.
func TestInterruptCountsEveryRowRead(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	in := &countingReader{sliceReader: sliceReader{rows: rows(1000, time.Hour, 30, 2)}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		// Row 0 sent, row 1 waiting for its time, 256 queued, one more in
		// the reader's hand, blocked on the full queue.
		for in.read.Load() < 259 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	s, err := Run(ctx, cfg, in, &memWriter{})
	if err == nil {
		t.Fatal("want the context's error")
	}
	if read := int(in.read.Load()); s.Sent+s.Warmup+s.NotSent != read {
		t.Errorf("read %d rows, but sent %d + warm-up %d + not sent %d = %d", read, s.Sent, s.Warmup, s.NotSent, s.Sent+s.Warmup+s.NotSent)
	}
}

// gatedReader holds every row after the first until open is closed.
type gatedReader struct {
	sliceReader
	open chan struct{}
}

func (r *gatedReader) Next() bool {
	if r.i >= 1 {
		<-r.open
	}
	return r.sliceReader.Next()
}

// Closed loop: a row a client takes from the queue after the run was
// interrupted is not sent, and is counted as not sent, not written as a
// sent request that failed.
func TestClosedLoopInterruptSendsNothingMore(t *testing.T) {
	for attempt := range 20 {
		srv := replaytest.New(replaytest.Options{})
		cfg := testConfig(srv)
		cfg.Arrival, cfg.Concurrency = Closed, 1
		in := &gatedReader{sliceReader: sliceReader{rows: rows(50, 0, 30, 2)}, open: make(chan struct{})}
		ctx, cancel := context.WithCancel(t.Context())
		w := &memWriter{}
		go func() {
			for srv.Count() < 1 {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(10 * time.Millisecond) // row 0 done, its client waiting for the next
			cancel()
			close(in.open)
		}()
		s, _ := Run(ctx, cfg, in, w)
		cancel()
		srv.Close()
		if s.Sent != srv.Count() || s.Sent+s.NotSent != in.i {
			t.Fatalf("attempt %d: sent %d, not sent %d, the server got %d, rows read %d", attempt, s.Sent, s.NotSent, srv.Count(), in.i)
		}
	}
}
