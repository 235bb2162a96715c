package telemetry

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The engine's base URL as record's --base-url takes it ends in /v1; its
// metrics are at the server's root, /metrics, not /v1/metrics.
func TestMetricsURLFromAPIBase(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8000/v1":        "http://h:8000/metrics",
		"http://h:8000/v1/":       "http://h:8000/metrics",
		"https://h/engine/v1":     "https://h/engine/metrics",
		"http://h:8000/x/metrics": "http://h:8000/x/metrics",
	} {
		if got, err := metricsURL(in); err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestScrapeAPIBaseURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("vllm:num_requests_running 3\nvllm:num_requests_waiting 1\n"))
	}))
	defer srv.Close()
	var logs bytes.Buffer
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL + "/v1", Interval: time.Hour, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatalf("base URL %s/v1: %v (%s)", srv.URL, err, logs.String())
	}
	if sum := s.Stop(); sum.Engine != "vllm" || sum.MaxRunning != 3 {
		t.Errorf("summary %+v", sum)
	}
}
