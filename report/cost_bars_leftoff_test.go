package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// The sweep cost figure draws at most maxCostBars bars, and none for a
// config without a cost at saturation; the table above lists them all,
// so the caption must name the configs it has no bar for, or a reader
// looking for #13 cannot tell left off from lost.
func TestSweepCostFigureNamesConfigsWithoutBar(t *testing.T) {
	var rows []sweep.Row
	for i := 1; i <= 14; i++ {
		sat := 1.0
		if i == 3 {
			sat = math.NaN()
		}
		rows = append(rows, sweep.Row{Index: int64(i), Rank: int64(i), OnPareto: true, Label: fmt.Sprintf("c%d", i), Outcome: sweep.OutcomeOK, Scale: 1,
			RateScale: math.NaN(), USDPerMOutEst: float64(i), SatUSDPerMOut: sat, TailPenalty: 0.5, KneeScale: math.NaN(),
			TTFTP99: 1, OutTokPerSec: 10, GoodputOutTokPerSecPerDevice: 10})
	}
	d, err := Build("t", &Inputs{Sweeps: []*Sweep{{Name: "s", Path: "s.parquet", Rows: rows}}})
	if err != nil {
		t.Fatal(err)
	}
	var caption string
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if f, ok := b.(*Figure); ok && f.Name == "cost-sweep-0" {
				caption = f.Caption
			}
		}
	}
	if caption == "" {
		t.Fatal("no sweep cost figure")
	}
	for _, want := range []string{"#3 (no cost at saturation)", "#14"} {
		if !strings.Contains(caption, want) {
			t.Errorf("caption %q does not name %s as drawn without a bar", caption, want)
		}
	}
	if strings.Contains(caption, "#12") {
		t.Errorf("caption %q names #12, which has a bar", caption)
	}
}
