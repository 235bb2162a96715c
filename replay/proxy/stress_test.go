package proxy

import (
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// checkWriter wraps the trace writer with a slow, jittery Write and Flush
// and checks how the proxy uses it: one call at a time, nothing after
// Close, and each row flushed soon after it is written.
type checkWriter struct {
	traces.Writer
	t       *testing.T
	busy    atomic.Bool
	closed  atomic.Bool
	ids     []string    // the rows in the order written
	written []time.Time // when each was written
	flushed int         // rows covered by the last flush
	lag     time.Duration
	flushes int
}

func (w *checkWriter) enter(op string) {
	if !w.busy.CompareAndSwap(false, true) {
		w.t.Errorf("%s while another call to the writer is in progress", op)
	}
	if w.closed.Load() {
		w.t.Errorf("%s after Close", op)
	}
}

func (w *checkWriter) Write(r *traces.Request) error {
	w.enter("Write")
	defer w.busy.Store(false)
	if rand.IntN(16) == 0 {
		time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
	}
	w.ids = append(w.ids, r.ID)
	w.written = append(w.written, time.Now())
	return w.Writer.Write(r)
}

func (w *checkWriter) Flush() error {
	w.enter("Flush")
	defer w.busy.Store(false)
	now := time.Now()
	for _, at := range w.written[w.flushed:] {
		w.lag = max(w.lag, now.Sub(at))
	}
	w.flushed = len(w.written)
	w.flushes++
	time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
	return w.Writer.(traces.Flusher).Flush()
}

func (w *checkWriter) Close() error {
	w.enter("Close")
	defer w.busy.Store(false)
	w.closed.Store(true)
	return w.Writer.Close()
}

// Many requests finish out of order while the writer is now and then slow
// and flushes take a random time: every row is staged once, none after
// Close, the trace holds them in arrival order, each made durable within a few flush intervals
// while traffic flows, and Stats never runs ahead of or behind the rows
// written. Close comes while requests are still arriving.
func TestStressRowsOnceInOrder(t *testing.T) {
	stress(t, 2*time.Millisecond, false)
}

// With no flush tick to fall back on, the handlers' wake-ups alone get
// every row written: soon after the last has handed its row over, none is
// left queued.
func TestStressNoRowLeftQueued(t *testing.T) {
	stress(t, time.Hour, true)
}

func stress(t *testing.T, flushEvery time.Duration, quiesce bool) {
	cfg := DefaultConfig()
	cfg.Upstream = "http://127.0.0.1:1"
	cfg.Out = filepath.Join(t.TempDir(), "run.arrows")
	cfg.FlushInterval = min(flushEvery, time.Second)
	cfg.Logger = slog.New(slog.DiscardHandler)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := newProxy(cfg, flushEvery) // past what Validate allows, for no tick at all
	if err != nil {
		t.Fatal(err)
	}
	cw := &checkWriter{Writer: p.w, t: t}
	p.wmu.Lock()
	p.w = cw
	p.wmu.Unlock()

	const workers = 16
	var (
		wg       sync.WaitGroup
		arrived  atomic.Int64
		stopping atomic.Bool
		stop     = make(chan struct{})
	)
	for range workers {
		wg.Go(func() {
			for !stopping.Load() {
				ex := p.arrive()
				if ex == nil {
					return
				}
				arrived.Add(1)
				ex.row.PromptTokens, ex.row.OutputTokens = 1, 2
				if rand.IntN(4) == 0 {
					ex.row.Error = "x"
				}
				// Requests take a while, finish out of order, and
				// their clients wait a little before the next: traffic
				// well within what the writer keeps up with.
				time.Sleep(time.Duration(rand.IntN(1000)) * time.Microsecond)
				p.emit(ex)
				p.inflight.Done()
				time.Sleep(time.Duration(rand.IntN(500)) * time.Microsecond)
			}
		})
	}
	statsDone := make(chan struct{})
	go func() {
		defer close(statsDone)
		last := 0
		for {
			select {
			case <-stop:
				return
			default:
			}
			s := p.Stats()
			if s.Rows < last || s.PromptTokens != int64(s.Rows-s.Failed) || s.OutputTokens != 2*int64(s.Rows-s.Failed) || s.Failed > s.Rows {
				t.Errorf("inconsistent stats %+v (rows before %d)", s, last)
				return
			}
			last = s.Rows
			time.Sleep(100 * time.Microsecond)
		}
	}()
	time.Sleep(500 * time.Millisecond)
	if quiesce {
		stopping.Store(true)
		wg.Wait()
		// The flush loop writes what the last wake-up left ready.
		ready, written := -1, 0
		for deadline := time.Now().Add(5 * time.Second); (ready != 0 || written != int(arrived.Load())) && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			p.mu.Lock()
			ready, written = len(p.ready), p.stats.Rows
			p.mu.Unlock()
		}
		if ready != 0 {
			t.Errorf("traffic over: %d rows still queued", ready)
		}
		if s := p.Stats(); s.Rows != int(arrived.Load()) {
			t.Errorf("traffic over: %d rows written, %d arrived", s.Rows, arrived.Load())
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	<-statsDone

	n := int(arrived.Load())
	if len(cw.ids) != n {
		t.Errorf("%d rows written, %d arrived", len(cw.ids), n)
	}
	seen := make([]bool, n)
	for i, id := range cw.ids {
		seq, err := strconv.Atoi(id)
		if err != nil || seq < 0 || seq >= n || seen[seq] {
			t.Fatalf("staged row %d has id %s: want every row once", i, id)
		}
		seen[seq] = true
	}
	if s := p.Stats(); s.Rows != n || !s.Written {
		t.Errorf("stats %+v, want %d rows written", s, n)
	}
	_, rows, err := traces.ReadAll(cfg.Out)
	if err != nil || len(rows) != n {
		t.Fatalf("trace: %v, %d rows, want %d", err, len(rows), n)
	}
	for i, row := range rows {
		if row.ID != strconv.Itoa(i) {
			t.Fatalf("trace row %d has id %s: want arrival order", i, row.ID)
		}
	}
	t.Logf("%d rows, %d flushes, longest a row waited for a flush: %v", n, cw.flushes, cw.lag)
	if n < 100 {
		t.Errorf("%d rows: too few to test anything", n)
	}
	if quiesce {
		return
	}
	if cw.flushes < 5 {
		t.Errorf("%d flushes in 500 ms, every %v", cw.flushes, flushEvery)
	}
	// Generous: 2 ms flushes on a loaded host. A flush held off by the
	// traffic would show as a lag near the test's length.
	if cw.lag > 250*time.Millisecond {
		t.Errorf("a row waited %v to be flushed, with flushes every %v", cw.lag, flushEvery)
	}
}

// chainWriter keeps the writer busy the way steady traffic does: while it
// writes a row, the next one finishes and is left for it.
type chainWriter struct {
	traces.Writer
	next, queued chan struct{}
	flushes      atomic.Int64
}

func (w *chainWriter) Write(r *traces.Request) error {
	w.next <- struct{}{}
	<-w.queued // the next row is in ready now: its handler found the writer held
	time.Sleep(50 * time.Microsecond)
	return w.Writer.Write(r)
}

func (w *chainWriter) Flush() error {
	w.flushes.Add(1)
	return w.Writer.(traces.Flusher).Flush()
}

// While rows keep finishing as fast as they are written, the rows written
// are still made durable every FlushInterval: the flush loop must not get
// stuck writing the rows that handlers leave while it holds the writer.
func TestFlushesKeepComingUnderSteadyTraffic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Upstream = "http://127.0.0.1:1"
	cfg.Out = filepath.Join(t.TempDir(), "run.arrows")
	cfg.FlushInterval = 2 * time.Millisecond
	cfg.Logger = slog.New(slog.DiscardHandler)
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cw := &chainWriter{Writer: p.w, next: make(chan struct{}), queued: make(chan struct{})}
	p.wmu.Lock()
	p.w = cw
	p.wmu.Unlock()
	var traffic atomic.Bool
	traffic.Store(true)
	var n atomic.Int64
	go func() { // the handlers: each finishes as the writer asks
		for range cw.next {
			if traffic.Load() {
				if ex := p.arrive(); ex != nil {
					n.Add(1)
					p.emit(ex)
					p.inflight.Done()
				}
			}
			cw.queued <- struct{}{}
		}
	}()
	ex := p.arrive()
	n.Add(1)
	p.emit(ex)
	p.inflight.Done()
	const run = 200 * time.Millisecond
	time.Sleep(run)
	traffic.Store(false)
	got := cw.flushes.Load()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	close(cw.next)
	if s := p.Stats(); s.Rows != int(n.Load()) {
		t.Errorf("%d rows written, %d arrived", s.Rows, n.Load())
	}
	t.Logf("%d rows, %d flushes in %v", n.Load(), got, run)
	// 100 ticks; a loaded host may lose many, but not nearly all.
	if got < 10 {
		t.Errorf("%d flushes in %v of traffic with FlushInterval %v", got, run, cfg.FlushInterval)
	}
}
