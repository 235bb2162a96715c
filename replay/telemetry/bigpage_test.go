package telemetry

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A page longer than the cap is refused as a failed scrape, saying why;
// cut at the cap, its last line could read as a different value.
func TestOversizePageIsAFailure(t *testing.T) {
	const last = "vllm:num_requests_waiting 1"
	pad := maxMetricsPage - len(last)
	var page bytes.Buffer
	for page.Len() < pad {
		line := "# " + strings.Repeat("x", min(1000, pad-page.Len()-3)) + "\n"
		page.WriteString(line)
	}
	page.WriteString(last + "2\n") // 12 waiting; cut at the cap it says 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(page.Bytes())
	}))
	defer srv.Close()
	var logs bytes.Buffer
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: time.Hour, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	sum := s.Stop()
	if sum.Failed != 1 || sum.Scrapes != 0 || !math.IsNaN(sum.MaxWaiting) {
		t.Errorf("summary %+v: want the page refused, not waiting %v", sum, sum.MaxWaiting)
	}
	if !strings.Contains(logs.String(), "MiB") {
		t.Errorf("log does not say the page is too long: %s", logs.String())
	}
}
