package verify

import (
	"fmt"
	"strings"
	"testing"
)

// Candidates measured at the same cost share a measured rank (1, 1, 3):
// numbering them 1 and 2 in sweep order would show an order the
// measurements do not support. The printed ranking marks the tie.
func TestRankTiedCostsShareAMeasuredRank(t *testing.T) {
	cand := func(rank int64, c float64) CandidateResult {
		return CandidateResult{Rank: rank, Label: fmt.Sprint("c", rank), Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: &c}}}
	}
	cands := []CandidateResult{cand(1, 0.12), cand(2, 0.10), cand(3, 0.10), cand(4, 0.12), cand(5, 0.2)}
	rk := Rank(cands)
	var got []int
	for _, e := range rk.Entries {
		got = append(got, e.MeasuredRank)
	}
	if want := []int{1, 1, 3, 3, 5}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("measured ranks %v: want %v", got, want)
	}
	res := &Result{Candidates: cands}
	res.finish()
	var b strings.Builder
	res.WriteTable(&b)
	if want := "=1. #2 c2 ($0.1000) =1. #3 c3 ($0.1000) =3. #1 c1 ($0.1200) =3. #4 c4 ($0.1200) 5. #5 c5 ($0.2000)"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant the ranking %q", b.String(), want)
	}
}

// A sweep's best tied with another at the cheapest is measured among the
// cheapest, not alone: its line says the tie.
func TestRankBestTiedWithTheCheapest(t *testing.T) {
	cand := func(rank int64, c float64) CandidateResult {
		return CandidateResult{Rank: rank, Label: fmt.Sprint("c", rank), Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: &c}}}
	}
	rk := Rank([]CandidateResult{cand(1, 0.10), cand(2, 0.12), cand(3, 0.10)})
	if got, want := rk.BestString(), "the sweep's best was measured cheapest, tied with 1 other"; got != want || !*rk.BestHeld {
		t.Errorf("%q, held %v; want %q, held", got, *rk.BestHeld, want)
	}
}
