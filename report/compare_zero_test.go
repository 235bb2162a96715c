package report

import (
	"strings"
	"testing"
)

// A change from 0 is measured on both sides: its change reads "new", and
// its flag must not say "not measured". A failure share rising from 0 by
// less than a tenth of a point is no regression and no better; a goodput
// rising from 0 is better.
func TestCompareChangeFromZeroIsMeasured(t *testing.T) {
	a, b := handRun("a", 1), handRun("b", 1)
	a.Metrics.Completed, a.Metrics.Failed = 2000, 0
	b.Metrics.Completed, b.Metrics.Failed = 1999, 1 // 0.05%
	a.Metrics.Goodput, b.Metrics.Goodput = 0, 1
	a.SLO.TTFT, b.SLO.TTFT = 1, 1 // any limit: the goodput row is shown
	cs := compareRuns(t, a, b, 0.1)
	var out strings.Builder
	if err := WriteComparison(&out, a, b, cs, 0.1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ metric, flag string }{{"failed requests (share)", ""}, {"goodput (req/s)", "better"}} {
		var line string
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, want.metric) {
				line = l
			}
		}
		if line == "" {
			t.Fatalf("no %s row:\n%s", want.metric, out.String())
		}
		if strings.Contains(line, "not measured") || strings.Contains(line, "REGRESSION") ||
			(want.flag != "" && !strings.Contains(line, want.flag)) {
			t.Errorf("%s: want the flag %q, got: %s", want.metric, want.flag, line)
		}
	}
}
