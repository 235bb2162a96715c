package replay

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"
)

// The pacer may be late (the host decides how late) but never early, for
// waits shorter than its spin, its kernel sleep and its timer margin, and
// for a due time already past.
func TestPacerNeverEarly(t *testing.T) {
	p := newPacer()
	for _, ahead := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 300 * time.Microsecond,
		2 * time.Millisecond, 4 * time.Millisecond, 20 * time.Millisecond} {
		for range 5 {
			due := time.Now().Add(ahead)
			if err := p.waitUntil(context.Background(), due); err != nil {
				t.Fatal(err)
			}
			if now := time.Now(); now.Before(due) {
				t.Errorf("%v ahead: returned %v early", ahead, due.Sub(now))
			}
		}
	}
}

func TestPacerStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if err := newPacer().waitUntil(ctx, t0.Add(time.Hour)); err != context.DeadlineExceeded {
		t.Fatalf("waitUntil = %v, want %v", err, context.DeadlineExceeded)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("waitUntil returned %v after its context ended", d)
	}
}

// BenchmarkPacerWake times the pacer through waits of 500 µs (2,000
// sends a second) and reports how late it came back: median, p99 and the
// share of waits over LagLimit late. Alone, on a quiet host, that is the
// host's own wake-up jitter, a floor under any replay's schedule lag; with
// fsync, another goroutine makes a file durable every 20 ms, as the
// recorder does its output every Config.FlushEvery. Run it with a fixed
// count: -benchtime 10000x.
//
// sparse waits 20 ms each (50 sends a second), where the pacer sleeps in
// the kernel until spinMargin before each send: -benchtime 1000x.
func BenchmarkPacerWake(b *testing.B) {
	b.Run("alone", func(b *testing.B) { pacerWake(b, 500*time.Microsecond) })
	b.Run("sparse", func(b *testing.B) { pacerWake(b, 20*time.Millisecond) })
	b.Run("fsync", func(b *testing.B) {
		f, err := os.Create(filepath.Join(b.TempDir(), "out"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			buf := make([]byte, 64<<10)
			for tick := time.NewTicker(20 * time.Millisecond); ; {
				select {
				case <-stop:
					tick.Stop()
					return
				case <-tick.C:
					if _, err := f.Write(buf); err == nil {
						f.Sync()
					}
				}
			}
		}()
		pacerWake(b, 500*time.Microsecond)
		close(stop)
		<-done
	})
}

func pacerWake(b *testing.B, wait time.Duration) {
	p := newPacer()
	var late []time.Duration
	for b.Loop() {
		due := time.Now().Add(wait)
		if err := p.waitUntil(context.Background(), due); err != nil {
			b.Fatal(err)
		}
		late = append(late, time.Since(due))
	}
	slices.Sort(late)
	over := len(late) - sort.Search(len(late), func(i int) bool { return late[i] > LagLimit })
	b.ReportMetric(float64(late[len(late)/2].Nanoseconds())/1e3, "p50-late-µs")
	b.ReportMetric(float64(late[len(late)*99/100].Nanoseconds())/1e3, "p99-late-µs")
	b.ReportMetric(100*float64(over)/float64(len(late)), "%-over-1ms")
}

// BenchmarkClockStalls reads the monotonic clock in a loop for 100 ms an
// iteration and reports how often a gap between two readings exceeded
// LagLimit: the host taking the CPU from a thread that never sleeps, a
// floor under schedule lag that no way of waiting removes.
func BenchmarkClockStalls(b *testing.B) {
	stalls, spun := 0, time.Duration(0)
	for b.Loop() {
		t0 := time.Now()
		prev := t0
		for prev.Sub(t0) < 100*time.Millisecond {
			now := time.Now()
			if now.Sub(prev) > LagLimit {
				stalls++
			}
			prev = now
		}
		spun += prev.Sub(t0)
	}
	b.ReportMetric(float64(stalls)/spun.Seconds(), "stalls-over-1ms/s")
}
