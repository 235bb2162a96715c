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
