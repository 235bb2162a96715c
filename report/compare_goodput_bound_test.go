package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// goodputRun is a live run of n one-second slices whose goodput is one
// success a second in the slices every, none elsewhere.
func goodputRun(name string, n, every int) *Run {
	rates := &Rates{ReqPerSec: make([]float64, n), OutTokPerSec: make([]float64, n), Goodput: make([]float64, n)}
	met := 0
	for i := range n {
		rates.ReqPerSec[i], rates.OutTokPerSec[i] = 1, 100
		if i%every == 0 {
			rates.Goodput[i] = 1
			met++
		}
	}
	r := &Run{Name: name, Kind: "live", Rates: rates, SLO: traces.SLO{E2E: time.Second}}
	nan := math.NaN()
	r.Metrics = Metrics{Requests: int64(n), Completed: int64(n), MetSLO: int64(met), ReqPerSec: 1, OutTokPerSec: 100,
		Goodput: float64(met) / float64(n), TTFTP50: nan, TTFTP99: nan, TPOTMean: nan, TPOTP99: nan, E2EP99: nan,
		DeviceSeconds: nan, USDPerMOutEst: nan, USDPerMOutBilled: nan}
	return r
}

// A baseline whose goodput is a few successes in a long run has
// resamples with none: a change from them is unbounded above, and the
// interval says so rather than printing "new" for its bound.
func TestCompareGoodputUnboundedInterval(t *testing.T) {
	a, b := goodputRun("a", 60, 30), goodputRun("b", 60, 3)
	cs := compareRuns(t, a, b, 0.1)
	var out strings.Builder
	if err := WriteComparison(&out, a, b, cs, 0.1); err != nil {
		t.Fatal(err)
	}
	var line string
	for l := range strings.SplitSeq(out.String(), "\n") {
		if strings.HasPrefix(l, "goodput") {
			line = l
		}
	}
	for _, c := range cs {
		if c.Metric == "goodput (req/s)" && !math.IsInf(c.Hi, 1) {
			t.Fatalf("upper bound %v: want the resamples of no goodput to leave it unbounded\n%s", c.Hi, out.String())
		}
	}
	if strings.Contains(line, "new") || !strings.Contains(line, "… unbounded") {
		t.Errorf("goodput line %q: want its interval to end \"… unbounded\"\n%s", line, out.String())
	}
}
