package telemetry

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A page that is slow to come is stamped inside the request, not when
// it was asked for: Between cuts a run's window by that stamp, and a
// page rendered late must not fall before a window it belongs to.
func TestScrapeStampsASlowPageWhileItCame(t *testing.T) {
	const slow = 600 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(slow)
		io.WriteString(w, "sglang:num_running_reqs 3\n")
	}))
	defer srv.Close()
	var logs bytes.Buffer
	asked := time.Now()
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: time.Minute, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	came := time.Now()
	if late := s.Between(asked.Add(slow/4), came); late.Scrapes != 1 {
		t.Errorf("page stamped before %v into its %v request: %+v", slow/4, slow, late)
	}
	if early := s.Between(asked.Add(-time.Hour), asked.Add(slow/4)); early.Scrapes != 0 {
		t.Errorf("page stamped when it was asked for: %+v", early)
	}
}
