package sweep

import (
	"strings"
	"testing"
)

// A P99 over fewer than 100 requests is nearest-rank their slowest: the
// note says so where the SLO limits a P99, and only there.
func TestFewRequestsForP99(t *testing.T) {
	p99 := SLO{TTFTP99Ms: 1000}
	for _, c := range []struct {
		slo  SLO
		n    int
		want string
	}{
		{p99, 30, "30 requests"},
		{p99, 99, "99 requests"},
		{SLO{TPOTP99Ms: 50}, 30, "30 requests"},
		{SLO{E2EP99Ms: 5000}, 30, "30 requests"},
		{p99, 100, ""},
		{SLO{GoodputMin: 0.9}, 30, ""},
	} {
		got := FewRequestsForP99(c.slo, handTrace(c.n, 1))
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%+v over %d requests: %q, want one naming %q", c.slo, c.n, got, c.want)
		}
	}
	// Warm-up rows are no part of the P99.
	tr := handTrace(120, 1)
	for i := range 30 {
		tr.Reqs[i].Warmup = true
	}
	tr.nAll = 90
	if got := FewRequestsForP99(p99, tr); !strings.Contains(got, "90 requests") {
		t.Errorf("90 measured of 120: %q", got)
	}
}
