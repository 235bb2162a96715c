package telemetry

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// A tick carries the time it came due: the polls missed before it are
// those due earlier, never the tick being taken, however late the loop
// gets to it, and a due time set a little after the ticker's own grid
// does not lose one.
func TestCountMissedCountsOnlyThePollsBeforeTheTick(t *testing.T) {
	const every = 10 * time.Millisecond
	origin := time.Now()
	s := &Scraper{cfg: ScrapeConfig{Interval: every, Origin: origin}}
	due := origin.Add(every + 50*time.Microsecond) // set just after NewTicker
	tick := origin.Add(3 * every)                  // polls due at 1 and 2 intervals were not made
	next := s.countMissed(tick, due)
	if s.sum.Missed != 2 {
		t.Fatalf("tick at %v with %v due: %d missed, want 2", tick.Sub(origin), due.Sub(origin), s.sum.Missed)
	}
	for _, at := range s.missedAt {
		if at >= int64(tick.Sub(origin)) {
			t.Errorf("missed poll stamped at %v, not before the tick taken at %v", time.Duration(at), tick.Sub(origin))
		}
	}
	if want := tick.Add(every); !next.Equal(want) {
		t.Errorf("next due %v, want %v", next.Sub(origin), want.Sub(origin))
	}
	if s.countMissed(next.Add(-50*time.Microsecond), next); s.sum.Missed != 2 {
		t.Errorf("a tick on time counted %d missed in all, want still 2", s.sum.Missed)
	}
}

// Polls that come due while a scrape hangs and Stop then ends it were not
// made: the summary counts them up to the stop.
func TestStopCountsThePollsDueDuringTheLastScrape(t *testing.T) {
	const interval, hung = 10 * time.Millisecond, 65 * time.Millisecond
	var hits atomic.Int32
	hanging := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			io.WriteString(w, "vllm:num_requests_running 1\n")
			return
		}
		select {
		case hanging <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	var logs bytes.Buffer
	begin := time.Now()
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: interval, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	<-hanging
	time.Sleep(hung)
	sum := s.Stop()
	stopped := time.Now()
	if low := int(hung/interval) - 1; sum.Missed < low {
		t.Errorf("summary %+v: %d missed, want at least %d for a scrape hung %v at a %v interval", sum, sum.Missed, low, hung, interval)
	}
	if w := s.Between(begin, stopped); w.Missed != sum.Missed {
		t.Errorf("a window up to the stop: %d missed, want the summary's %d", w.Missed, sum.Missed)
	}
}
