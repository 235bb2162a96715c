package verify

import "testing"

// A sweep's best measured exactly 5% dearer than the cheapest is within
// 5% of it: the division's rounding (1.05/1 − 1 = 0.05000000000000004)
// must not turn the verdict, as it does not for a tolerance.
func TestRankBestExactlyWithinFivePercentHolds(t *testing.T) {
	cand := func(rank int64, cost float64) CandidateResult {
		return CandidateResult{Rank: rank, Label: "c", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: f(cost)}}}
	}
	rk := Rank([]CandidateResult{cand(1, 1.05), cand(2, 1.00)})
	if rk.BestHeld == nil || !*rk.BestHeld {
		t.Errorf("best measured 5%% dearer: best held %v (gap %s), want true", rk.BestHeld != nil && *rk.BestHeld, fmtOpt(rk.BestGap))
	}
}
