package telemetry

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Stop while a page is still coming in ends that scrape: it is not a
// failed scrape, and nothing is logged as if the engine had failed.
func TestStopDuringAScrapeIsNotAFailure(t *testing.T) {
	var hits atomic.Int32
	reading := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			io.WriteString(w, "vllm:num_requests_running 1\n")
			return
		}
		io.WriteString(w, "vllm:num_requests_running 2\n")
		w.(http.Flusher).Flush()
		select {
		case reading <- struct{}{}:
		default:
		}
		<-r.Context().Done() // the rest of the page never comes
	}))
	defer srv.Close()
	var logs bytes.Buffer
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: time.Millisecond, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	<-reading
	time.Sleep(10 * time.Millisecond) // the scraper is inside the page
	sum := s.Stop()
	if sum.Failed != 0 || sum.Scrapes != 1 || sum.Err != nil {
		t.Errorf("summary %+v: want 1 scrape, 0 failed", sum)
	}
	if strings.Contains(logs.String(), "failed") {
		t.Errorf("logged a failure: %s", logs.String())
	}
}
