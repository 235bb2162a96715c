package verify

import (
	"encoding/json"
	"strings"
	"testing"
)

// A cheapest measured cost so small that the sweep's best over it is past
// what a float holds leaves no gap to write: verify.json (which JSON
// cannot hold +Inf in) must still be written, and the best not held.
func TestRankBestGapPastAFloatIsNotWritten(t *testing.T) {
	cand := func(rank int64, cost float64) CandidateResult {
		return CandidateResult{Rank: rank, Label: map[int64]string{1: "best", 2: "cheapest"}[rank],
			Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: f(cost)}}}
	}
	cands := []CandidateResult{cand(1, 1e10), cand(2, 1e-300)}
	rk := Rank(cands)
	if rk.BestHeld == nil || *rk.BestHeld {
		t.Errorf("sweep's best at 1e10 against a cheapest of 1e-300: best held %v, want false", rk.BestHeld)
	}
	if rk.BestGap != nil {
		t.Errorf("best gap %v: want none (past what a float holds)", *rk.BestGap)
	}
	if _, err := json.Marshal(rk); err != nil {
		t.Errorf("ranking does not write to JSON: %v", err)
	}
	if s := rk.BestString(); strings.Contains(s, "free") || !strings.Contains(s, "within 5%: false") {
		t.Errorf("best: %s; want it measured dearer than the cheapest (not free), not held", s)
	}
}
