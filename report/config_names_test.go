package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A sweep's figures name a config as the tables do, so that a point or
// bar can be looked up: "#N" for a ranked config, else "index=N" (the
// selector compare takes), which the table rows show too.
func TestSweepFiguresNameConfigsAsTheTables(t *testing.T) {
	row := func(idx, rank int64, cost float64) sweep.Row {
		outcome := sweep.OutcomeSLOViolated
		if rank > 0 {
			outcome = sweep.OutcomeOK
		}
		return sweep.Row{Index: idx, Rank: rank, Label: "c", Outcome: outcome, Scale: 1, USDPerMOutEst: cost,
			SatUSDPerMOut: cost / 2, TailPenalty: 1, KneeScale: math.NaN(), TTFTP99: cost, OutTokPerSec: 10,
			GoodputOutTokPerSecPerDevice: 10, ParetoLatency: rank == 0}
	}
	in := &Inputs{Sweeps: []*Sweep{{Name: "s", Rows: []sweep.Row{row(3, 1, 1), row(7, 0, 2)}}}}
	d, err := Build("t", in)
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if tb, ok := b.(*Table); ok {
				for _, r := range tb.Rows {
					cells = append(cells, r[0])
				}
			}
		}
	}
	for _, name := range []string{"#1", "index=7"} {
		for _, fig := range []string{"pareto-0-latency", "cost-sweep-0"} {
			if svg := figureSVG(d, fig); !strings.Contains(svg, ">"+name+"<") {
				t.Errorf("%s does not name a config %q", fig, name)
			}
		}
		found := 0
		for _, c := range cells {
			if strings.HasPrefix(c, name+" ") {
				found++
			}
		}
		if found != 2 { // the comparison and the cost table
			t.Errorf("%d table rows start with %q, want 2: %q", found, name, cells)
		}
	}
}
