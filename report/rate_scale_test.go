package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A sweep over rate_scale evaluates each config at the scale it names,
// with no capacity search: the report said every config was "at its SLO
// capacity" and marked the swept scale as the "highest load meeting the
// SLO", though a config that met the SLO at 1× met it at 4× as well.
func TestRateScaleSweepClaimsNoCapacity(t *testing.T) {
	curve := []sweep.CurvePoint{{Scale: 1, OutTokPerSec: 10, TTFTP99: 0.1}, {Scale: 2, OutTokPerSec: 19, TTFTP99: 0.2},
		{Scale: 4, OutTokPerSec: 35, TTFTP99: 0.4}}
	rows := []sweep.Row{
		{Index: 0, Rank: 1, Label: "rate_scale=4", RateScale: 4, Outcome: sweep.OutcomeOK, Scale: 4, KneeScale: math.NaN(),
			USDPerMOutEst: 1, SatUSDPerMOut: 1, TailPenalty: 0, TTFTP99: 0.4, OutTokPerSec: 35, Curve: curve},
		{Index: 1, Rank: 2, Label: "rate_scale=1", RateScale: 1, Outcome: sweep.OutcomeOK, Scale: 1, KneeScale: math.NaN(),
			USDPerMOutEst: 3.5, SatUSDPerMOut: 1, TailPenalty: 2.5, TTFTP99: 0.1, OutTokPerSec: 10, Curve: curve},
	}
	d, err := Build("t", &Inputs{Sweeps: []*Sweep{{Name: "s", Path: "s.parquet", Rows: rows}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case *Table:
				if strings.Contains(b.Caption, "SLO capacity") {
					t.Errorf("%s: table caption %q: the configs were not run at their SLO capacity", s.Title, b.Caption)
				}
			case *Figure:
				if strings.Contains(string(b.SVG), "SLO capacity") || strings.Contains(b.Caption, "SLO capacity") {
					t.Errorf("%s: figure %s marks or names an SLO capacity", s.Title, b.Name)
				}
			}
		}
	}
}
