package report

import (
	"regexp"
	"strings"
	"testing"
)

// The mean TPOT of 100 requests and of 90 requests, each 100 ms, differ
// in the last bits of their sums: the comparison read "+1.4e-14%" for
// runs whose every request was the same. A change within rounding is no
// change.
func TestCompareRoundingIsNoChange(t *testing.T) {
	a, b := handRun("a", 1), handRun("b", 1)
	tpots := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 0.1
		}
		return v
	}
	a.Lat.TPOT, b.Lat.TPOT = tpots(100), tpots(90)
	a.Metrics.TPOTMean, b.Metrics.TPOTMean = mean(a.Lat.TPOT), mean(b.Lat.TPOT)
	a.Kind = "live" // measured: the mean gets an interval
	cs := compareRuns(t, a, b, 0.1)
	var out strings.Builder
	if err := WriteComparison(&out, a, b, cs, 0.1); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Metric == "mean TPOT" && (c.Rel != 0 || c.Lo != 0 || c.Hi != 0) {
			t.Errorf("mean TPOT: change %v, interval %v … %v: want 0 throughout\n%s", c.Rel, c.Lo, c.Hi, out.String())
		}
	}
	if regexp.MustCompile(`\de-\d`).MatchString(out.String()) {
		t.Errorf("a rounding error shown as a change:\n%s", out.String())
	}
}
