package verify

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"strings"
	"testing"
)

// A prediction against a measured 0 is an infinite miss (it fails any
// tolerance): the median |error| over the candidates counts it as the
// largest error, not as a candidate that was never compared. When the
// median itself falls on an infinite miss it is left out (JSON cannot
// hold it) rather than given as the finite errors' median.
func TestMedianAbsErrorsCountsInfiniteMisses(t *testing.T) {
	tol := DefaultTolerances()
	cand := func(predTPOT, measTPOT float64) CandidateResult {
		pred, meas := &Metrics{TPOTMean: f(predTPOT), OutTokPerSec: f(100)}, &Metrics{TPOTMean: f(measTPOT), OutTokPerSec: f(100)}
		return CandidateResult{Repeat: Repeat{Status: StatusOK, Measured: *meas}, Predicted: *pred, Rows: CompareMetrics(pred, meas, tol)}
	}
	// Errors ∞, 5%, 6%: the median is 6%.
	m := MedianAbsErrors([]CandidateResult{cand(0.02, 0), cand(1.05, 1), cand(1.06, 1)})
	if v, ok := m[MetricTPOTMean]; !ok || math.Abs(v-0.06) > 1e-9 {
		t.Errorf("median |error| of ∞, 5%%, 6%%: %v (%v), want 0.06", v, ok)
	}
	// Errors ∞, ∞, 5%: the median is infinite, and said so.
	m = MedianAbsErrors([]CandidateResult{cand(0.02, 0), cand(0.03, 0), cand(1.05, 1)})
	if v, ok := m[MetricTPOTMean]; !ok || !math.IsInf(v, 1) {
		t.Errorf("median |error| of ∞, ∞, 5%%: %v (%v), want +Inf", v, ok)
	}
	if v := m[MetricThroughput]; v != 0 {
		t.Errorf("throughput median %v, want 0", v)
	}
	if got := FormatErrors(m); !strings.Contains(got, "tpot_mean_s ∞") {
		t.Errorf("FormatErrors: %q, want the infinite median shown as ∞", got)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"tpot_mean_s":"inf"`) {
		t.Errorf("JSON %s: want the infinite median written \"inf\"", data)
	}
	var back Errors
	if err := json.Unmarshal(data, &back); err != nil || !maps.Equal(back, m) {
		t.Errorf("read back: %v, %v: want %v", back, err, m)
	}
	for _, bad := range []string{`{"tpot_mean_s":"big"}`, `{"tpot_mean_s":-0.1}`} {
		err := json.Unmarshal([]byte(bad), &back)
		if err == nil {
			err = errors.Join(back.check("median_abs_error")...)
		}
		if err == nil || !strings.Contains(err.Error(), "tpot_mean_s") {
			t.Errorf("%s: err = %v, want one that names the metric", bad, err)
		}
	}
}
