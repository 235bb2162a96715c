package report

import "testing"

// failuresRun is a live run of n requests, failed of them failed.
func failuresRun(name string, n, failed int64) *Run {
	return &Run{Name: name, Kind: "live", Metrics: Metrics{Requests: n, Completed: n - failed, Failed: failed}}
}

// Two live runs of one engine fail by chance: 4 and 6 failures in 200
// requests (a rise of half, a point) are within noise, while 30 in 1,000
// where there were none is beyond it.
func TestCompareFailureShareNoise(t *testing.T) {
	for _, tc := range []struct {
		a, b      *Run
		wantFlags bool
	}{
		{failuresRun("a", 200, 4), failuresRun("b", 200, 6), false},
		{failuresRun("a", 1000, 0), failuresRun("b", 1000, 30), true},
		{failuresRun("a", 5000, 50), failuresRun("b", 5000, 90), true},
	} {
		for _, c := range compareRuns(t, tc.a, tc.b, 0.10) {
			if c.Metric == "failed requests (share)" && c.Regressed != tc.wantFlags {
				t.Errorf("%d of %d failed, then %d of %d: flagged %v, want %v (change %v, interval %v … %v)",
					tc.a.Metrics.Failed, tc.a.Metrics.Requests, tc.b.Metrics.Failed, tc.b.Metrics.Requests,
					c.Regressed, tc.wantFlags, c.Rel, c.Lo, c.Hi)
			}
		}
	}
}
