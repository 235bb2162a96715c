package report

import (
	"strings"
	"testing"
)

// A CDF of a million requests is drawn at cdfLevels evenly spaced
// quantiles, not at every request: a page a browser opens stays small.
// The levels take in the P50 and P99 the legend names, so the line
// passes through them, and the caption says the line is sampled.
func TestLatencyCDFOfManyRequestsIsSampledAtQuantiles(t *testing.T) {
	const n = 1_000_000
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i*i) / n // uneven gaps, so a missed rank shows
	}
	pts := cdfPoints(v, 1, cdfLevels)
	if len(pts) > cdfLevels+1 {
		t.Errorf("%d points for %d requests, want at most %d (the start and %d quantiles)", len(pts), n, cdfLevels+1, cdfLevels)
	}
	for _, q := range []float64{.5, .99} {
		found := false
		for _, p := range pts {
			found = found || (p.X == Quantile(v, q) && p.Y == q)
		}
		if !found {
			t.Errorf("no point at the P%g (%g, %g)", 100*q, Quantile(v, q), q)
		}
	}
	if last := pts[len(pts)-1]; last.X != v[n-1] || last.Y != 1 {
		t.Errorf("last point %v, want the largest value at 1 (%g, 1)", last, v[n-1])
	}

	get := func(l *Latencies) []float64 { return l.E2E }
	f, err := cdfFigure("cdf-e2e", "E2E", []*Run{{Name: "big", Lat: &Latencies{E2E: v}}}, get)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Caption, "quantiles") {
		t.Errorf("caption %q does not say the line is drawn at quantiles", f.Caption)
	}
	f, err = cdfFigure("cdf-e2e", "E2E", []*Run{{Name: "small", Lat: &Latencies{E2E: v[:cdfLevels]}}}, get)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.Caption, "quantiles") {
		t.Errorf("caption %q says a line of every request is sampled", f.Caption)
	}
}
