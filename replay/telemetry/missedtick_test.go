package telemetry

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A /metrics page slower than the interval makes the ticker skip polls:
// the summary counts them, so that fewer rows than the recording's length
// asks for are not read as an engine scraped at every interval.
func TestSlowScrapeCountsMissedPolls(t *testing.T) {
	const interval, slow = 20 * time.Millisecond, 70 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(slow)
		w.Write([]byte("vllm:num_requests_running 1\n"))
	}))
	defer srv.Close()
	var logs bytes.Buffer
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: interval, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	time.Sleep(20 * slow)
	sum := s.Stop()
	polls := int(time.Since(begin) / interval)
	if sum.Missed == 0 {
		t.Fatalf("summary %+v: want missed polls counted, with each page taking %v at a %v interval", sum, slow, interval)
	}
	// Each scrape of about 70 ms passes 2 or 3 ticks; whether they are
	// taken or missed, they add up to the recording's length.
	if got := sum.Scrapes + sum.Failed + sum.Missed; got < polls/2 || got > polls+2 {
		t.Errorf("%d scrapes + %d failed + %d missed = %d, want about the %d intervals recorded", sum.Scrapes, sum.Failed, sum.Missed, got, polls)
	}
	if w := s.Between(begin.Add(-time.Minute), time.Now()); w.Missed != sum.Missed {
		t.Errorf("a window over the whole scrape: %d missed, want the summary's %d", w.Missed, sum.Missed)
	}
	if w := s.Between(begin.Add(-time.Minute), begin.Add(-time.Second)); w.Missed != 0 {
		t.Errorf("a window before polling began: %d missed, want 0", w.Missed)
	}
}
