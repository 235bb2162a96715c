package telemetry

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzMetricsURL: a --metrics-url either fails with an error asking for
// http(s) that shows no user info, query or fragment, or gives a URL to
// poll on the host given, at /metrics beside an API root (no path, or one
// ending in /v1), and a form to show that holds no secret either.
// Seeds: testdata/fuzz/FuzzMetricsURL.
func FuzzMetricsURL(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw string) {
		poll, shown, err := metricsURL(raw)
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "want http(s)://") || showsSecret(msg) {
				t.Fatalf("metricsURL(%q): error %q: want one asking for http(s) that shows no user info, query or fragment", raw, msg)
			}
			return
		}
		if showsSecret(shown) {
			t.Fatalf("metricsURL(%q) shown as %q, which shows user info, a query or a fragment", raw, shown)
		}
		given, _ := url.Parse(raw) // it parsed, or metricsURL would have failed
		got, err := url.Parse(poll)
		if err != nil || (got.Scheme != "http" && got.Scheme != "https") || got.Host != given.Host {
			t.Fatalf("metricsURL(%q) polls %q (%v): want http(s) on host %q", raw, poll, err, given.Host)
		}
		if p := strings.TrimSuffix(given.Path, "/"); (p == "" || strings.HasSuffix(p, "/v1")) && !strings.HasSuffix(got.Path, "/metrics") {
			t.Fatalf("metricsURL(%q) polls path %q: want /metrics beside the API root", raw, got.Path)
		}
	})
}

// showsSecret is whether s shows a query, a fragment or user info other
// than the mask urlshow puts in its place.
func showsSecret(s string) bool {
	if strings.ContainsAny(s, "?#") {
		return true
	}
	parts := strings.Split(s, "@")
	for _, before := range parts[:len(parts)-1] {
		if !strings.HasSuffix(before, "//xxxxx") {
			return true
		}
	}
	return false
}
