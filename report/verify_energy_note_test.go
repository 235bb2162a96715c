package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// A hardware-only ranking says why: energy not measured at all (no
// --gpu), or measured for some candidates but not the ones named, or
// measured but not predicted; not "energy not measured" when --gpu
// measured it for some.
func TestVerificationRankingSaysWhoseEnergyIsMissing(t *testing.T) {
	hw1, hw2, j := 1.0, 1.2, 0.5
	cand := func(rank int64, label string, predJ, measJ *float64) verify.CandidateResult {
		c := verify.CandidateResult{Rank: rank, Label: label, Repeat: verify.Repeat{Status: verify.StatusOK,
			Measured: verify.Metrics{USDPerMOut: &hw1, USDPerMOutHardware: &hw1, JPerOutTok: measJ}}}
		c.Predicted = verify.Metrics{USDPerMOut: &hw2, USDPerMOutHardware: &hw2, JPerOutTok: predJ}
		c.CostBasis = verify.CostHardware
		if predJ != nil && measJ != nil {
			c.CostBasis = verify.CostHardwareEnergy
		}
		return c
	}
	for _, tc := range []struct {
		name        string
		cands       []verify.CandidateResult
		want, avoid string
	}{
		{"none measured", []verify.CandidateResult{cand(1, "a", &j, nil), cand(2, "b", &j, nil)}, "energy not measured", "for #"},
		{"some measured", []verify.CandidateResult{cand(1, "a", &j, &j), cand(2, "b", &j, nil)}, "energy not measured for #2 b", "#1 a"},
		{"measured, not predicted", []verify.CandidateResult{cand(1, "a", &j, &j), cand(2, "b", nil, &j)}, "energy not predicted for #2 b", "not measured"},
	} {
		res := &verify.Result{Candidates: tc.cands}
		res.Ranking = verify.Rank(res.Candidates)
		if res.Ranking.Basis() != verify.CostHardware {
			t.Fatalf("%s: basis %s, want hardware", tc.name, res.Ranking.Basis())
		}
		line := rankingLine(t, res)
		note := line[:strings.Index(line, "):")]
		if !strings.Contains(note, tc.want) || strings.Contains(note, tc.avoid) {
			t.Errorf("%s: %q: want %q, and not %q", tc.name, note, tc.want, tc.avoid)
		}
	}
}
