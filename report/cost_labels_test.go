package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// With no config meeting the SLO the cost table lists unranked configs,
// and the cost bars must name them so that they can be found in it: the
// bars once counted "#1", "#2", ... over the configs with a saturation
// cost only, so "#1" was the table's second row (and read as rank 1).
func TestSweepCostBarsNameTableRows(t *testing.T) {
	row := func(idx int64, cost, sat float64) sweep.Row {
		return sweep.Row{Index: idx, Label: "c", Outcome: sweep.OutcomeSLOViolated, Scale: 1, USDPerMOutEst: cost,
			SatUSDPerMOut: sat, TailPenalty: math.NaN(), KneeScale: math.NaN(), TTFTP99: 1, OutTokPerSec: 10,
			GoodputOutTokPerSecPerDevice: 10}
	}
	in := &Inputs{Sweeps: []*Sweep{{Name: "s", Rows: []sweep.Row{row(7, 1, math.NaN()), row(9, 2, 1.5)}}}}
	d, err := Build("t", in)
	if err != nil {
		t.Fatal(err)
	}
	svg := figureSVG(d, "cost-sweep-0")
	if svg == "" {
		t.Fatal("no sweep cost figure")
	}
	if strings.Contains(svg, ">#1<") {
		t.Error(`the bar of the table's second row is labelled "#1"`)
	}
	if !strings.Contains(svg, ">index=9<") {
		t.Error(`no bar labelled "index=9", as the table row it shows`)
	}
}

// The sweep's cost-vs-throughput plot places configs by goodput per
// device, as the sweep ranks them: its axis says so, and says when a
// config without a goodput is placed by all its output instead.
func TestSweepParetoAxisNamesGoodput(t *testing.T) {
	row := func(idx int64, cost, goodput float64) sweep.Row {
		return sweep.Row{Index: idx, Rank: idx, Label: "c", Outcome: sweep.OutcomeOK, Scale: 1, USDPerMOutEst: cost,
			SatUSDPerMOut: math.NaN(), TailPenalty: math.NaN(), KneeScale: math.NaN(), TTFTP99: float64(idx), OutTokPerSec: 20,
			GoodputOutTokPerSecPerDevice: goodput, DeviceCount: 1, Replicas: 1}
	}
	for _, tc := range []struct {
		goodput float64
		want    string
	}{{10, ">goodput output tokens/s per device<"}, {math.NaN(), ">goodput (else all) output tokens/s per device<"}} {
		in := &Inputs{Sweeps: []*Sweep{{Name: "s", Rows: []sweep.Row{row(1, 1, 12), row(2, 2, tc.goodput)}}}}
		d, err := Build("t", in)
		if err != nil {
			t.Fatal(err)
		}
		svg := figureSVG(d, "pareto-0-throughput")
		if !strings.Contains(svg, tc.want) {
			t.Errorf("goodput %v: the throughput axis is not labelled %q", tc.goodput, tc.want)
		}
	}
}

// figureSVG is the SVG of d's figure called name, "" if it has none.
func figureSVG(d *Doc, name string) string {
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if f, ok := b.(*Figure); ok && f.Name == name {
				return string(f.SVG)
			}
		}
	}
	return ""
}
