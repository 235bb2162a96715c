package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// The comparison table shows a sweep's best configs; the caption must
// say what became of the rest, or 12 infeasible configs read as merely
// left off for room.
func TestComparisonCaptionCountsConfigsLeftOut(t *testing.T) {
	rows := []sweep.Row{
		{Index: 0, Rank: 1, Label: "a", Outcome: sweep.OutcomeOK, Scale: 1, RateScale: math.NaN(), USDPerMOutEst: 1, SatUSDPerMOut: 1, TTFTP99: 0.1, OutTokPerSec: 10},
		{Index: 1, Label: "b", Outcome: sweep.OutcomeInfeasible, Scale: math.NaN(), RateScale: math.NaN(), USDPerMOutEst: math.NaN(), Note: "the SLO fails at every probed scale"},
		{Index: 2, Label: "c", Outcome: sweep.OutcomeInfeasible, Scale: math.NaN(), RateScale: math.NaN(), USDPerMOutEst: math.NaN()},
		{Index: 3, Label: "d", Outcome: sweep.OutcomeSkipped, Scale: math.NaN(), RateScale: math.NaN(), USDPerMOutEst: math.NaN()},
	}
	tb := comparisonTable(t, rows)
	if want := "The other 3: infeasible 2, skipped 1."; !strings.Contains(tb.Caption, want) {
		t.Errorf("caption %q, want it to hold %q", tb.Caption, want)
	}
	if tb := comparisonTable(t, rows[:1]); strings.Contains(tb.Caption, "other") {
		t.Errorf("caption %q speaks of other configs where all are shown", tb.Caption)
	}
}
