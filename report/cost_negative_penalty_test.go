package report

import (
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A config can cost less per token at the SLO than at saturation (the
// saturation point is the curve's highest throughput, not its cheapest):
// its tail penalty is negative, and its bar must still total the cost
// at the SLO, the table's "$/1M out at SLO", not the saturation cost.
func TestSweepCostBarTotalsTheCostAtTheSLO(t *testing.T) {
	for _, c := range []struct{ slo, sat float64 }{{1, 2}, {3, 2}, {2, 2}} {
		r := &sweep.Row{USDPerMOutEst: c.slo, SatUSDPerMOut: c.sat, TailPenalty: c.slo/c.sat - 1}
		base, pen := sweepCostSegments(r)
		if pen < 0 || base < 0 {
			t.Errorf("slo %v, sat %v: negative segment (%v, %v)", c.slo, c.sat, base, pen)
		}
		if got := base + pen; math.Abs(got-c.slo) > 1e-12 {
			t.Errorf("slo %v, sat %v: bar totals %v, want the cost at the SLO %v", c.slo, c.sat, got, c.slo)
		}
	}
}

// The page's chart for such a config: its axis stops near the cost at
// the SLO ($1), not at the saturation cost ($2).
func TestSweepCostChartOfANegativePenalty(t *testing.T) {
	row := sweep.Row{Index: 1, Rank: 1, Label: "c", Outcome: sweep.OutcomeOK, Scale: 1, USDPerMOutEst: 1,
		SatUSDPerMOut: 2, TailPenalty: -0.5, KneeScale: math.NaN(), TTFTP99: 1, OutTokPerSec: 10,
		GoodputOutTokPerSecPerDevice: 10, DeviceCount: 1, Replicas: 1}
	d, err := Build("t", &Inputs{Sweeps: []*Sweep{{Name: "s", Rows: []sweep.Row{row}}}})
	if err != nil {
		t.Fatal(err)
	}
	svg := figureSVG(d, "cost-sweep-0")
	for _, m := range regexp.MustCompile(`>([0-9.]+)<`).FindAllStringSubmatch(svg, -1) {
		if v, _ := strconv.ParseFloat(m[1], 64); v > 1.08 {
			t.Errorf("the cost axis reaches $%v; the bar is the cost at the SLO, $1", v)
		}
	}
}
