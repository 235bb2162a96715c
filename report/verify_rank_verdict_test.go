package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// The ranking line gives the sweep's best as verify prints it: "was
// measured cheapest" when it is, else how much dearer with the within-5%
// verdict, which is what decides whether the simulator's pick held.
func TestVerificationRankingGivesTheBestVerdict(t *testing.T) {
	for _, tc := range []struct {
		best, other float64
		want        string
	}{
		{1.0, 1.2, "the sweep's best was measured cheapest"},
		{1.03, 1.0, "the sweep's best was measured 3.0% dearer than the cheapest (within 5%: true)"},
		{1.2, 1.0, "the sweep's best was measured 20.0% dearer than the cheapest (within 5%: false)"},
	} {
		res := &verify.Result{Candidates: []verify.CandidateResult{
			{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK, Measured: verify.Metrics{USDPerMOut: &tc.best}}},
			{Rank: 2, Label: "b", Repeat: verify.Repeat{Status: verify.StatusOK, Measured: verify.Metrics{USDPerMOut: &tc.other}}},
		}}
		res.Ranking = verify.Rank(res.Candidates)
		if line := rankingLine(t, res); !strings.Contains(line, tc.want) {
			t.Errorf("best $%v against $%v: %q: want %q", tc.best, tc.other, line, tc.want)
		}
	}
}
