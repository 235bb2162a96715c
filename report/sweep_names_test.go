package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// Two sweeps of one spec (a before and an after) are told apart by where
// each came from, as runs of one name are.
func TestSweepsOfOneNameAreToldApart(t *testing.T) {
	sweepOf := func(path string) *Sweep {
		return &Sweep{Name: "small.toml", Path: path, Rows: []sweep.Row{{Index: 0, Rank: 1, Label: "c",
			Outcome: sweep.OutcomeOK, Scale: 1, USDPerMOutEst: 1, SatUSDPerMOut: 1, TTFTP99: 1, OutTokPerSec: 10}}}
	}
	d, err := Build("t", &Inputs{Sweeps: []*Sweep{sweepOf("before/sweep.parquet"), sweepOf("after/sweep.parquet")}})
	if err != nil {
		t.Fatal(err)
	}
	var captions []string
	for _, b := range d.Sections[0].Blocks {
		if tb, ok := b.(*Table); ok {
			captions = append(captions, strings.SplitN(tb.Caption, ":", 2)[0])
		}
	}
	if len(captions) != 2 || captions[0] == captions[1] {
		t.Errorf("the sweeps' tables are captioned %q: want two names", captions)
	}
}
