package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// rankingLine is the verification section's "Ranking by measured" text.
func rankingLine(t *testing.T, res *verify.Result) string {
	t.Helper()
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if tx, ok := b.(*Text); ok && strings.HasPrefix(tx.Text, "Ranking by measured") {
			return tx.Text
		}
	}
	t.Fatal("no ranking line")
	return ""
}

// When the sweep's first candidate was not measured, the best measured
// candidate the gap is of is rank 2, not "the sweep's best" (rank 1), and
// the line says so, as verify's own table does (best_sweep_rank). A free
// cheapest leaves no gap to show, but the verdict is still given.
func TestVerificationRankingNamesTheBestMeasuredRank(t *testing.T) {
	c2, c3 := 1.2, 1.0
	res := &verify.Result{Candidates: []verify.CandidateResult{
		{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusHealth, Detail: "not healthy after 60s"}},
		{Rank: 2, Label: "b", Repeat: verify.Repeat{Status: verify.StatusOK, Measured: verify.Metrics{USDPerMOut: &c2}}},
		{Rank: 3, Label: "c", Repeat: verify.Repeat{Status: verify.StatusOK, Measured: verify.Metrics{USDPerMOut: &c3}}},
	}}
	res.Ranking = verify.Rank(res.Candidates)
	if res.Ranking.BestRank != 2 {
		t.Fatalf("best_sweep_rank %d, want 2", res.Ranking.BestRank)
	}
	line := rankingLine(t, res)
	if !strings.Contains(line, "(rank 2) was measured 20.0% dearer") {
		t.Errorf("%q: want the gap of 20.0%% said of rank 2, the best measured", line)
	}

	// Rank 1 measured: it is the sweep's best, named as before.
	res.Candidates[0].Repeat = verify.Repeat{Status: verify.StatusOK, Measured: verify.Metrics{USDPerMOut: &c2}}
	res.Ranking = verify.Rank(res.Candidates)
	if line := rankingLine(t, res); strings.Contains(line, "(rank") || !strings.Contains(line, "the sweep's best was measured 20.0% dearer") {
		t.Errorf("%q: want the sweep's best (rank 1) 20.0%% dearer without a rank", line)
	}

	// A free cheapest: no gap, and the sweep's best is not within it.
	free := 0.0
	res.Candidates[2].Measured.USDPerMOut = &free
	res.Ranking = verify.Rank(res.Candidates)
	if res.Ranking.BestGap != nil || res.Ranking.BestHeld == nil {
		t.Fatalf("want no gap and a verdict, got %+v", res.Ranking)
	}
	if line := rankingLine(t, res); !strings.Contains(line, "free cheapest") {
		t.Errorf("%q: want the sweep's best said dearer than the free cheapest", line)
	}
}
