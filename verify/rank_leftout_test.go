package verify

import (
	"encoding/json"
	"strings"
	"testing"
)

// A candidate that failed is out of the ranking and of Kendall's τ: the
// ranking line and verify.json's ranking name it and why, so a reader of
// τ can tell it covers fewer candidates than were verified.
func TestRankNamesTheCandidatesLeftOut(t *testing.T) {
	cost := func(v float64) *float64 { return &v }
	cands := []CandidateResult{
		{Rank: 1, Label: "c1", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: cost(0.1)}}},
		{Rank: 2, Label: "c2", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: cost(0.2)}}},
		{Rank: 3, Label: "c3", Repeat: Repeat{Status: StatusStartFailed, Detail: "exit status 1"}},
	}
	rk := Rank(cands)
	if len(rk.LeftOut) != 1 || rk.LeftOut[0].Label != "c3" || rk.LeftOut[0].SweepRank != 3 ||
		rk.LeftOut[0].Status != StatusStartFailed || rk.LeftOut[0].Reason != "exit status 1" {
		t.Errorf("left out %+v: want c3 (rank 3) with its status and detail", rk.LeftOut)
	}
	b, err := json.Marshal(rk)
	if err != nil || !strings.Contains(string(b), `"left_out":[{"label":"c3","sweep_rank":3,"status":"engine_start_failed","reason":"exit status 1"}]`) {
		t.Errorf("ranking JSON %s (%v): want c3 under left_out", b, err)
	}
	res := &Result{Candidates: cands}
	res.finish()
	var tab strings.Builder
	res.WriteTable(&tab)
	if want := "; τ over 2 of 3 candidates; left out: #3 c3 (engine_start_failed)\n"; !strings.Contains(tab.String(), want) {
		t.Errorf("table:\n%s\nwant the ranking line to end %q", tab.String(), want)
	}
	cands[2] = CandidateResult{Rank: 3, Label: "c3", Repeat: Repeat{Status: StatusOK}}
	if got := Rank(cands).LeftOutString(); got != "τ over 2 of 3 candidates; left out: #3 c3 (no measured cost)" {
		t.Errorf("a measured candidate with no cost: %q", got)
	}
}

// With one measured cost there is no τ at all, so the ranking line must not
// speak of a τ over that one candidate.
func TestLeftOutStringWithOneMeasuredCostNamesNoTau(t *testing.T) {
	cost := func(v float64) *float64 { return &v }
	cands := []CandidateResult{
		{Rank: 1, Label: "c1", Repeat: Repeat{Status: StatusOK, Measured: Metrics{USDPerMOut: cost(0.1)}}},
		{Rank: 2, Label: "c2", Repeat: Repeat{Status: StatusDied}},
		{Rank: 3, Label: "c3", Repeat: Repeat{Status: StatusStartFailed}},
	}
	rk := Rank(cands)
	if rk.TauSweep != nil {
		t.Fatalf("τ %v from one measured cost: want none", *rk.TauSweep)
	}
	want := "ranked 1 of 3 candidates; no τ with fewer than 2; left out: #2 c2 (engine_died), #3 c3 (engine_start_failed)"
	if got := rk.LeftOutString(); got != want {
		t.Errorf("left-out line %q, want %q", got, want)
	}
}

// With no candidate measured at a cost there is no ranking, and the table
// still says so and names each candidate with why it is out: verify.json
// alone did before.
func TestWriteTableNamesTheCandidatesWhenNoneIsRanked(t *testing.T) {
	cands := []CandidateResult{
		{Rank: 1, Label: "c1", Repeat: Repeat{Status: StatusStartFailed, Detail: "exit status 1"}},
		{Rank: 2, Label: "c2", Repeat: Repeat{Status: StatusOK}},
	}
	res := &Result{Candidates: cands}
	res.finish()
	var tab strings.Builder
	res.WriteTable(&tab)
	want := "ranking by measured $/1M out: no candidate ranked (none of 2 has a measured cost); left out: #1 c1 (engine_start_failed), #2 c2 (no measured cost)\n"
	if !strings.Contains(tab.String(), want) {
		t.Errorf("table:\n%s\nwant the line %q", tab.String(), want)
	}
	if strings.Contains(tab.String(), "simulator's ranking held") {
		t.Errorf("table:\n%s\nwant no verdict on a ranking of no candidates", tab.String())
	}
}
