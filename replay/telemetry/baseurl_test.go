package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
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
		if got, _, err := metricsURL(in); err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", in, got, err, want)
		}
	}
}

// A base URL's escapes (%40, accepted in --base-url) are kept in the
// metrics URL polled, and it is shown, not hidden as if it held
// credentials.
func TestMetricsURLKeepsEscapes(t *testing.T) {
	const in, want = "http://h:8000/deployments/a%40b/v1", "http://h:8000/deployments/a%40b/metrics"
	got, shown, err := metricsURL(in)
	if err != nil || got != want || shown != want {
		t.Errorf("%s: got %q shown as %q, %v; want both %q", in, got, shown, err, want)
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

// A password in the metrics URL is used, but never logged or put in an
// error.
func TestScrapeURLPasswordNotShown(t *testing.T) {
	const pw = "s3cret-metrics-pw"
	for _, status := range []int{http.StatusNotFound, http.StatusInternalServerError} {
		var gotAuth bool
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, p, ok := r.BasicAuth()
			gotAuth = ok && p == pw
			w.WriteHeader(status)
		}))
		u, _ := url.Parse(srv.URL + "/metrics")
		u.User = url.UserPassword("me", pw)
		var logs bytes.Buffer
		s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: u.String(), Interval: time.Hour, Logger: testLogger(&logs)})
		s.Stop()
		srv.Close()
		if !gotAuth {
			t.Errorf("HTTP %d: the password did not reach the server", status)
		}
		if err != nil && strings.Contains(err.Error(), pw) {
			t.Errorf("HTTP %d: error shows the password: %v", status, err)
		}
		if strings.Contains(logs.String(), pw) {
			t.Errorf("HTTP %d: log shows the password: %s", status, logs.String())
		}
	}
	for _, bad := range []string{"ftp://me:" + pw + "@h/metrics", "http://me:" + pw + "@h:port/metrics"} {
		if _, _, err := metricsURL(bad); err == nil || strings.Contains(err.Error(), pw) {
			t.Errorf("bad URL: error %v", err)
		}
	}
}

// A query in the metrics URL (?api-key=...) is sent, but never logged or
// put in an error, however the scrape fails.
func TestScrapeURLQueryNotShown(t *testing.T) {
	const pw, q = "PWLEAK-metrics", "QLEAK-metrics"
	for _, status := range []int{http.StatusNotFound, http.StatusInternalServerError, 0} {
		var gotQuery bool
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotQuery = r.URL.Query().Get("api-key") == q
			w.WriteHeader(status)
		}))
		base := srv.URL
		if status == 0 { // nothing listens: the client's error quotes the URL
			srv.Close()
		}
		raw := strings.Replace(base, "://", "://me:"+pw+"@", 1) + "/metrics?api-key=" + q + "#" + q
		var logs bytes.Buffer
		s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: raw, Interval: time.Hour, Logger: testLogger(&logs)})
		s.Stop()
		srv.Close()
		if status != 0 && !gotQuery {
			t.Errorf("HTTP %d: the query did not reach the server", status)
		}
		shown := err != nil && strings.Contains(err.Error(), "/metrics") || strings.Contains(logs.String(), "/metrics")
		if !shown || !strings.Contains(logs.String()+fmt.Sprint(err), strings.TrimPrefix(base, "http://")) {
			t.Errorf("status %d: neither the error nor the log names the URL: %v\n%s", status, err, logs.String())
		}
		for _, sec := range []string{pw, q} {
			if err != nil && strings.Contains(err.Error(), sec) {
				t.Errorf("status %d: error shows %q: %v", status, sec, err)
			}
			if strings.Contains(logs.String(), sec) {
				t.Errorf("status %d: log shows %q: %s", status, sec, logs.String())
			}
		}
	}
	for _, bad := range []string{"ftp://me:" + pw + "@h/metrics?api-key=" + q, "http://h:port/metrics?api-key=" + q} {
		if _, _, err := metricsURL(bad); err == nil || strings.Contains(err.Error(), pw) || strings.Contains(err.Error(), q) {
			t.Errorf("bad URL: error %v", err)
		}
	}
}
