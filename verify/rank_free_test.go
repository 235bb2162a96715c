package verify

import (
	"encoding/json"
	"strings"
	"testing"
)

// A free candidate (a plan priced at $0/h) measured cheapest leaves no
// ratio to take against a sweep's best that cost something, but the best
// was not measured within 5% of the cheapest: the ranking says it did not
// hold, where it said nothing (n/a).
func TestRankSweepBestDearerThanAFreeCheapest(t *testing.T) {
	cand := func(rank int64, cost float64) CandidateResult {
		return CandidateResult{Rank: rank, Label: map[int64]string{1: "priced", 2: "free"}[rank],
			Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: f(cost)}}}
	}
	rk := Rank([]CandidateResult{cand(1, 0.10), cand(2, 0)})
	if rk.BestHeld == nil || *rk.BestHeld {
		t.Errorf("sweep's best at $0.10 against a free cheapest: best held %v, want false", rk.BestHeld)
	}
	if rk.BestGap != nil {
		t.Errorf("best gap %v: want none (no ratio to a $0 cost)", *rk.BestGap)
	}
	if _, err := json.Marshal(rk); err != nil {
		t.Fatal(err)
	}
	res := &Result{Candidates: []CandidateResult{cand(1, 0.10), cand(2, 0)}}
	res.finish()
	var b strings.Builder
	res.WriteTable(&b)
	if strings.Contains(b.String(), "best: n/a") || !strings.Contains(b.String(), "within 5%: false") {
		t.Errorf("table:\n%s\nwant the sweep's best reported as not held", b.String())
	}
}
