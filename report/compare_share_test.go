package report

import "testing"

// The failure share must rise by more than 0.1 percentage point to be
// flagged: 0.9% → 1.0% (9 → 10 failures in 1,000, +11%) rises by exactly
// that, whatever rounding does to 0.010 − 0.009.
func TestCompareFailureShareExactlyATenthOfAPoint(t *testing.T) {
	a, b := handRun("a", 1), handRun("b", 1)
	a.Metrics.Completed, a.Metrics.Failed = 991, 9
	b.Metrics.Completed, b.Metrics.Failed = 990, 10
	for _, c := range compareRuns(t, a, b, 0.1) {
		if c.Metric == "failed requests (share)" && c.Regressed {
			t.Errorf("%s %v → %v flagged: a rise of exactly 0.1 point is not more than it", c.Metric, c.A, c.B)
		}
	}
	b.Metrics.Completed, b.Metrics.Failed = 989, 11
	if n := Regressions(compareRuns(t, a, b, 0.1)); n != 1 {
		t.Errorf("0.9%% → 1.1%%: %d regressions, want 1", n)
	}
}
