package telemetry

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestEngineStateOf(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		page string
		want EngineState
	}{
		{"vllm", EngineState{"vllm", 4, 1, 0.25}},
		{"vllm_v0", EngineState{"vllm", 2, 0, 0.5}},
		{"sglang", EngineState{"sglang", 7, 3, 0.75}},
		{"tgi", EngineState{"tgi", 5, 9, nan}},
		{"llamacpp", EngineState{"llamacpp", 1, 2, 0.125}},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", tc.page+".prom"))
		if err != nil {
			t.Fatal(err)
		}
		samples, err := ParseMetrics(b)
		if err != nil {
			t.Fatalf("%s: %v", tc.page, err)
		}
		if got := EngineStateOf(samples); !stateEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.page, got, tc.want)
		}
	}
}

func TestEngineStateSumsRanksAndPrefersV1(t *testing.T) {
	page := `vllm:num_requests_running{engine="0"} 2
vllm:num_requests_running{engine="1"} 3
vllm:gpu_cache_usage_perc{engine="0"} 0.9
vllm:kv_cache_usage_perc{engine="0"} 0.2
vllm:kv_cache_usage_perc{engine="1"} 0.4
vllm:gpu_cache_usage_perc{engine="1"} 0.9
`
	s, _ := ParseMetrics([]byte(page))
	got := EngineStateOf(s)
	want := EngineState{"vllm", 5, math.NaN(), 0.3}
	if !stateEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := EngineStateOf(nil); got.Engine != "" || !math.IsNaN(got.Running) || !math.IsNaN(got.KVUsage) {
		t.Errorf("empty page: got %+v, want all NaN", got)
	}
}

func stateEqual(a, b EngineState) bool {
	eq := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) || math.Abs(x-y) < 1e-12 }
	return a.Engine == b.Engine && eq(a.Running, b.Running) && eq(a.Waiting, b.Waiting) && eq(a.KVUsage, b.KVUsage)
}

func testLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, nil))
}

func TestScrapeRecordsSeries(t *testing.T) {
	page, err := os.ReadFile("testdata/sglang.prom")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Write(page)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "run.engine.csv")
	var logs bytes.Buffer
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: 5 * time.Millisecond, Path: path, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	for hits.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	sum := s.Stop()
	if again := s.Stop(); again.Scrapes != sum.Scrapes {
		t.Error("second Stop changed the summary")
	}
	if sum.Err != nil || sum.Engine != "sglang" || sum.Scrapes < 3 || sum.MaxRunning != 7 || sum.MeanWaiting != 3 || sum.MaxKVUsage != 0.75 {
		t.Errorf("summary %+v", sum)
	}
	if err := s.Publish(); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	if strings.Join(rows[0], ",") != "t_ns,unix_ns,engine,running,waiting,kv_usage" {
		t.Errorf("header %v", rows[0])
	}
	if len(rows)-1 != sum.Scrapes {
		t.Errorf("%d rows for %d scrapes", len(rows)-1, sum.Scrapes)
	}
	if got := strings.Join(rows[1][2:], ","); got != "sglang,7,3,0.75" {
		t.Errorf("row 1: %s", got)
	}
}

func TestScrapeNoMetricsSaysSoOnce(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	var logs bytes.Buffer
	path := filepath.Join(t.TempDir(), "x.csv")
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL + "/metrics", Interval: time.Millisecond, Path: path, Logger: testLogger(&logs)})
	if !errors.Is(err, ErrNoMetrics) || s != nil {
		t.Fatalf("got %v, %v; want nil, ErrNoMetrics", s, err)
	}
	time.Sleep(20 * time.Millisecond)
	if n := hits.Load(); n != 1 {
		t.Errorf("polled %d times after a 404, want 1", n)
	}
	if n := strings.Count(logs.String(), "no /metrics"); n != 1 {
		t.Errorf("said so %d times: %s", n, logs.String())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("wrote %s for an engine without metrics", path)
	}
	sum := s.Stop() // nil-safe
	if !math.IsNaN(sum.MeanRunning) || !math.IsNaN(sum.MaxKVUsage) {
		t.Errorf("nil scraper summary not NaN: %+v", sum)
	}
}

func TestScrapeKeepsTryingWhenEngineIsDown(t *testing.T) {
	// Down for the first three scrapes, then up: decided by the scrape's
	// number, not by a flag the test flips while scrapes are in flight.
	var hits, served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "tgi_batch_current_size 2\ntgi_queue_size 1\n")
		served.Add(1)
	}))
	defer srv.Close()
	var logs bytes.Buffer
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: 2 * time.Millisecond, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	// Scrapes go one at a time: once a second page is served, the first
	// was read and counted, whatever Stop cuts short.
	for deadline := time.Now().Add(10 * time.Second); served.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			s.Stop()
			t.Fatalf("no page served 10 s after the engine came up (%d scrapes tried): the scraper stopped trying", hits.Load())
		}
	}
	sum := s.Stop()
	if sum.Failed < 3 || sum.Scrapes < 1 || sum.Engine != "tgi" || !math.IsNaN(sum.MaxKVUsage) {
		t.Errorf("summary %+v", sum)
	}
	if n := strings.Count(logs.String(), "failed"); n != 1 {
		t.Errorf("logged the failure %d times, want once: %s", n, logs.String())
	}
}

func TestScrapeStopsWithContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "llamacpp:requests_processing 1\n")
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := StartScrape(ctx, srv.URL, time.Millisecond, "")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	done := make(chan ScrapeSummary)
	go func() { done <- s.Stop() }()
	select {
	case sum := <-done:
		if sum.Engine != "llamacpp" {
			t.Errorf("summary %+v", sum)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stop hung after the context ended")
	}
}

func TestMetricsURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8000":           "http://h:8000/metrics",
		"http://h:8000/":          "http://h:8000/metrics",
		"http://h:8000/x/metrics": "http://h:8000/x/metrics",
	} {
		if got, _, err := metricsURL(in); err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", in, got, err, want)
		}
	}
	if _, _, err := metricsURL("h:8000"); err == nil {
		t.Error("accepted a URL without a scheme")
	}
	for _, bad := range []string{"ftp://h:8000/metrics", "unix://h/metrics"} {
		if _, _, err := metricsURL(bad); err == nil || !strings.Contains(err.Error(), "want http(s)://") {
			t.Errorf("%s: err %v, want one asking for http(s)", bad, err)
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// llama.cpp's server started without --metrics answers its /metrics with
// 501 ("This server does not support metrics endpoint"): an engine without
// the endpoint, said once, not polled on as one that is down.
func TestScrapeNotImplementedIsNoMetrics(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotImplemented)
		w.Write([]byte(`{"error":{"code":501,"message":"This server does not support metrics endpoint. Start it with ` + "`--metrics`" + `","type":"not_supported_error"}}`))
	}))
	defer srv.Close()
	var logs bytes.Buffer
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: time.Millisecond, Logger: testLogger(&logs)})
	if !errors.Is(err, ErrNoMetrics) || s != nil {
		s.Stop()
		t.Fatalf("got %v, %v; want nil, ErrNoMetrics", s, err)
	}
	time.Sleep(20 * time.Millisecond)
	if n := hits.Load(); n != 1 {
		t.Errorf("polled %d times after a 501, want 1", n)
	}
}

// SGLang exports a scheduler's gauges once per tensor-parallel rank; the
// ranks share one batch, so they count once. Data-parallel ranks are
// separate engines and add up.
func TestEngineStateCountsTPRanksOnce(t *testing.T) {
	page := `sglang:num_running_reqs{model_name="m",tp_rank="0",dp_rank="0"} 4
sglang:num_running_reqs{model_name="m",tp_rank="1",dp_rank="0"} 4
sglang:num_running_reqs{model_name="m",tp_rank="0",dp_rank="1"} 2
sglang:num_running_reqs{model_name="m",tp_rank="1",dp_rank="1"} 2
sglang:num_queue_reqs{model_name="m",tp_rank="0",dp_rank="0"} 1
sglang:num_queue_reqs{model_name="m",tp_rank="1",dp_rank="0"} 1
sglang:token_usage{model_name="m",tp_rank="0",dp_rank="0"} 0.5
sglang:token_usage{model_name="m",tp_rank="1",dp_rank="0"} 0.5
sglang:token_usage{model_name="m",tp_rank="0",dp_rank="1"} 0.25
`
	s, _ := ParseMetrics([]byte(page))
	got := EngineStateOf(s)
	want := EngineState{"sglang", 6, 1, 0.375}
	if !stateEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// Between counts the pages read and the scrapes failed inside the
// interval only; a nil scraper's is all NaN.
func TestScraperBetweenCountsTheIntervalOnly(t *testing.T) {
	var up atomic.Bool
	up.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "sglang:num_running_reqs 3\n")
	}))
	defer srv.Close()
	var logs bytes.Buffer
	s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: 5 * time.Millisecond, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	up.Store(false)
	time.Sleep(30 * time.Millisecond) // failures, outside the interval
	up.Store(true)
	time.Sleep(20 * time.Millisecond)
	from := time.Now()
	time.Sleep(50 * time.Millisecond)
	to := time.Now()
	time.Sleep(20 * time.Millisecond)
	all, iv := s.Stop(), s.Between(from, to)
	if all.Failed == 0 || iv.Failed != 0 || iv.Engine != "sglang" || iv.Scrapes == 0 || iv.Scrapes >= all.Scrapes || iv.MeanRunning != 3 {
		t.Errorf("whole %+v; interval %+v: want the interval's pages alone, none failed", all, iv)
	}
	if got := (*Scraper)(nil).Between(from, to); got.Scrapes != 0 || !math.IsNaN(got.MeanRunning) {
		t.Errorf("nil scraper: %+v, want all NaN", got)
	}
}
