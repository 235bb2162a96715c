package report

import "testing"

// A config that had a result and has none regressed whatever the
// threshold: the loss is no relative change of some size, and
// --threshold 100% must not wave it through.
func TestCompareLostResultRegressesAtAnyThreshold(t *testing.T) {
	a, b := handRun("a", 1), handRun("b", 1)
	b.NoResult = "infeasible: the SLO fails at every probed scale down to 0.1"
	for _, thr := range []float64{0.1, 1, 5} {
		for _, c := range compareRuns(t, a, b, thr) {
			if c.Metric == "has a result" && !c.Regressed {
				t.Errorf("threshold %v: %s %v → %v not flagged", thr, c.Metric, c.A, c.B)
			}
		}
	}
}
