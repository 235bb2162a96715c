package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// The verify page's ranking line names a candidate left out of τ, as
// verify prints it.
func TestVerificationRankingNamesTheCandidatesLeftOut(t *testing.T) {
	cost := func(v float64) *float64 { return &v }
	res := &verify.Result{Candidates: []verify.CandidateResult{
		{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK, Measured: verify.Metrics{USDPerMOut: cost(1)}}},
		{Rank: 2, Label: "b", Repeat: verify.Repeat{Status: verify.StatusDied}},
		{Rank: 3, Label: "c", Repeat: verify.Repeat{Status: verify.StatusOK, Measured: verify.Metrics{USDPerMOut: cost(2)}}},
	}}
	res.Ranking = verify.Rank(res.Candidates)
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if tx, ok := b.(*Text); ok && strings.HasPrefix(tx.Text, "Ranking by measured") {
			if want := "; τ over 2 of 3 candidates; left out: #2 b (engine_died)."; !strings.HasSuffix(tx.Text, want) {
				t.Errorf("%q: want it to end %q", tx.Text, want)
			}
			return
		}
	}
	t.Fatal("no ranking line")
}

// With no candidate measured at a cost, the verify page still has a
// ranking line naming each candidate and why it is out, as verify prints
// it: a measured candidate with no cost is named nowhere else.
func TestVerificationRankingNamesTheCandidatesWhenNoneIsRanked(t *testing.T) {
	res := &verify.Result{Candidates: []verify.CandidateResult{
		{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK}},
		{Rank: 2, Label: "b", Repeat: verify.Repeat{Status: verify.StatusDied}},
	}}
	res.Ranking = verify.Rank(res.Candidates)
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "Ranking by measured $/1M output tokens: no candidate ranked (none of 2 has a measured cost); left out: #1 a (no measured cost), #2 b (engine_died)."
	for _, b := range blocks {
		if tx, ok := b.(*Text); ok && strings.HasPrefix(tx.Text, "Ranking by measured") {
			if tx.Text != want {
				t.Errorf("%q: want %q", tx.Text, want)
			}
			return
		}
	}
	t.Fatalf("no ranking line: want %q", want)
}
