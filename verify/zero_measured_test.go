package verify

import (
	"encoding/json"
	"strings"
	"testing"
)

// A measured 0 is no reason to skip the verdict: a prediction of 0 is
// exact, any other an infinite miss (e.g. a mean TPOT of 0 from an engine
// that sent each answer in one chunk). The row must still read back.
func TestCompareMetricsZeroMeasured(t *testing.T) {
	tol := DefaultTolerances()
	pred := &Metrics{TPOTMean: f(0.02), USDPerMOut: f(0), JPerOutTok: f(3)}
	meas := &Metrics{TPOTMean: f(0), USDPerMOut: f(0), JPerOutTok: f(0)}
	by := map[string]MetricRow{}
	for _, r := range CompareMetrics(pred, meas, tol) {
		by[r.Metric] = r
		if err := r.check(); err != nil {
			t.Errorf("%s: row %+v does not read back: %v", r.Metric, r, err)
		}
	}
	if r := by[MetricTPOTMean]; r.Pass == nil || *r.Pass {
		t.Errorf("tpot predicted 0.02, measured 0: pass %v, want a failure", r.Pass)
	}
	if r := by[MetricCost]; r.Pass == nil || !*r.Pass || r.RelError == nil || *r.RelError != 0 {
		t.Errorf("cost predicted 0, measured 0: %+v, want error 0 and a pass", r)
	}
	if r := by[MetricEnergy]; r.Pass != nil {
		t.Errorf("energy (not gated): pass %v, want none", *r.Pass)
	}

	c := CandidateResult{Rank: 1, Label: "a", RateScale: 1, Repeat: Repeat{Status: StatusOK, Measured: *meas}, Predicted: *pred,
		Rows: CompareMetrics(pred, meas, tol)}
	res := &Result{Version: ResultVersion, Requests: 1, Tolerances: tol, Candidates: []CandidateResult{c}}
	res.finish()
	if res.ToleranceFailures != 1 || *res.Candidates[0].Pass {
		t.Errorf("%d tolerance failures, pass %v; want the TPOT miss counted", res.ToleranceFailures, *res.Candidates[0].Pass)
	}
	var b strings.Builder
	res.WriteTable(&b)
	if !strings.Contains(b.String(), "∞") || !strings.Contains(b.String(), "FAIL") {
		t.Errorf("table does not show the infinite miss as a failure:\n%s", b.String())
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseResult(data, "verify.json"); err != nil {
		t.Errorf("verify.json does not read back: %v", err)
	}
}

// An error of exactly the tolerance passes, whatever the float rounding of
// (predicted − measured) / measured: 1.1 against 1.0 at 10% is +10.0%.
func TestCompareMetricsErrorAtTolerance(t *testing.T) {
	tol := Tolerances{Throughput: 0.1, TTFT: 0.2, TPOT: 0.05, P99: 0.3, Cost: 0.1}
	pred := &Metrics{OutTokPerSec: f(1.1), TTFTMean: f(1.2), TPOTMean: f(0.0105), TTFTP99: f(1.3), USDPerMOut: f(0.9)}
	meas := &Metrics{OutTokPerSec: f(1), TTFTMean: f(1), TPOTMean: f(0.01), TTFTP99: f(1), USDPerMOut: f(1)}
	for _, r := range CompareMetrics(pred, meas, tol) {
		if r.Predicted == nil {
			continue
		}
		if r.Pass == nil || !*r.Pass {
			t.Errorf("%s: %v against %v, error %v at tolerance %v: want a pass", r.Metric, *r.Predicted, *r.Measured, *r.RelError, r.Tolerance)
		}
		if err := r.check(); err != nil {
			t.Errorf("%s: %v", r.Metric, err)
		}
	}
	// Just beyond the tolerance still fails.
	for _, r := range CompareMetrics(&Metrics{OutTokPerSec: f(1.1001)}, &Metrics{OutTokPerSec: f(1)}, tol) {
		if r.Metric == MetricThroughput && (r.Pass == nil || *r.Pass) {
			t.Errorf("error %v at tolerance 0.1: want a failure", *r.RelError)
		}
	}
}
