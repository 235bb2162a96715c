package verify

import (
	"encoding/json"
	"math"
	"testing"
)

// A prediction near the float limit against a tiny measured value is an
// error past what a float holds: infinite, as against a measured 0, so
// that the row still writes to JSON (null, and "inf" in the medians)
// and fails its tolerance.
func TestRelErrorOverflowIsInfinite(t *testing.T) {
	pred, meas := &Metrics{TPOTMean: f(1e308)}, &Metrics{TPOTMean: f(1e-10)}
	rows := CompareMetrics(pred, meas, DefaultTolerances())
	var row MetricRow
	for _, r := range rows {
		if r.Metric == MetricTPOTMean {
			row = r
		}
	}
	if row.RelError != nil {
		t.Errorf("rel_error = %v, want null (infinite)", *row.RelError)
	}
	if row.Pass == nil || *row.Pass {
		t.Errorf("pass = %v, want false", row.Pass)
	}
	if got := row.ErrorString(); got != "∞" {
		t.Errorf("ErrorString = %q, want ∞", got)
	}
	if _, err := json.Marshal(rows); err != nil {
		t.Errorf("rows do not write to JSON: %v", err)
	}
	if err := row.check(); err != nil {
		t.Errorf("check refuses the row CompareMetrics wrote: %v", err)
	}
	med := MedianAbsErrors([]CandidateResult{{Rows: rows}})
	if v := med[MetricTPOTMean]; !math.IsInf(v, 1) {
		t.Errorf("median |error| = %v, want +Inf", v)
	}
}
