package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// With one measured candidate there is no order to hold: the ranking
// line says so instead of "held: false".
func TestVerificationRankingOfOneCandidate(t *testing.T) {
	cost := 1.0
	res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a",
		Repeat: verify.Repeat{Status: verify.StatusOK, Measured: verify.Metrics{USDPerMOut: &cost}}}}}
	res.Ranking = verify.Rank(res.Candidates)
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if tx, ok := b.(*Text); ok && strings.HasPrefix(tx.Text, "Ranking by measured") {
			if strings.Contains(tx.Text, "held: false") || !strings.Contains(tx.Text, "held: n/a") {
				t.Errorf("%q: want held: n/a", tx.Text)
			}
			return
		}
	}
	t.Fatal("no ranking line")
}
