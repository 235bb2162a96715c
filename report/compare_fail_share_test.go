package report

import (
	"strings"
	"testing"
)

// One failure in 100,000 requests is a failure share, not "0.00%", and
// one success in 100,000 is not "100.00%": the cells of the comparison
// keep the digits that tell them from none and from all.
func TestCompareFailureShareOfARareOutcome(t *testing.T) {
	for _, c := range []struct {
		failed int64
		want   string
	}{{0, "0.00%"}, {1, "0.001%"}, {99999, ">99.99%"}, {100000, "100.00%"}, {250, "0.25%"}} {
		a, b := handRun("a", 1), handRun("b", 1)
		a.Metrics.Completed, a.Metrics.Failed = 100000, 0
		b.Metrics.Completed, b.Metrics.Failed = 100000-c.failed, c.failed
		var out strings.Builder
		if err := WriteComparison(&out, a, b, compareRuns(t, a, b, 0.1), 0.1); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if cells := strings.Fields(line); strings.HasPrefix(line, "failed requests (share)") && cells[4] != c.want {
				t.Errorf("%d of 100000 failed: B reads %q, want %q (line %q)", c.failed, cells[4], c.want, line)
			}
		}
		if !strings.Contains(out.String(), "failed requests (share)") {
			t.Fatalf("no failure share line in %q", out.String())
		}
	}
}
