package telemetry

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A page with a malformed line keeps the gauges that parsed, and says
// once which line did not: the gauge on it is an empty cell in every row,
// which would read as one the engine does not export.
func TestMalformedLineIsSaidOnce(t *testing.T) {
	const page = "vllm:num_requests_running 3\nvllm:num_requests_waiting{model_name=\"m} 2\nvllm:kv_cache_usage_perc 0.5\n"
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(page))
	}))
	defer srv.Close()
	var logs bytes.Buffer
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: 5 * time.Millisecond, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	for hits.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	sum := s.Stop()
	if sum.Failed != 0 || sum.Scrapes < 2 || sum.MaxRunning != 3 || sum.MaxKVUsage != 0.5 {
		t.Errorf("summary %+v: want the parsed gauges kept", sum)
	}
	if n := strings.Count(logs.String(), "metrics line 2"); n != 1 {
		t.Errorf("malformed line said %d times, want once:\n%s", n, logs.String())
	}
}
