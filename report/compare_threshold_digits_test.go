package report

import (
	"strings"
	"testing"
)

// The comparison names the threshold as it was given: 12.345% once
// printed as 12.3%, and a 0.125% one as 0.125% but 33.3333% as 33.3%.
func TestComparisonPrintsThresholdAsGiven(t *testing.T) {
	a := handRun("a", 1)
	for _, tc := range []struct {
		thr, ttft float64
		want      string
	}{
		{0.12345, 1, "no regression beyond 12.345%"},
		{0.333333, 1, "no regression beyond 33.3333%"},
		{0.12345, 2, "2 regressions beyond 12.345%"},
		{0.1, 1, "no regression beyond 10%"},
	} {
		b := handRun("b", tc.ttft)
		var out strings.Builder
		if err := WriteComparison(&out, a, b, compareRuns(t, a, b, tc.thr), tc.thr); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("threshold %v: output does not say %q:\n%s", tc.thr, tc.want, out.String())
		}
	}
	if got := ThresholdPct(0.12345); got != "12.345%" {
		t.Errorf("ThresholdPct(0.12345) = %q, want 12.345%%", got)
	}
}
