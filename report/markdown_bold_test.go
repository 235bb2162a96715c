package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A sweep without axes has one config, labelled "": its marked row's
// first cell, "#1 ★ ", ended in a space, and GitHub's Markdown does not
// close "**" after a space, so the row showed "**#1 ★ **" as written.
func TestMarkedRowOfAnUnlabelledConfigIsBold(t *testing.T) {
	r := sweep.Row{Index: 0, Rank: 1, Label: "", Outcome: sweep.OutcomeOK, Scale: 1, USDPerMOutEst: 1, SatUSDPerMOut: 1,
		KneeScale: math.NaN(), TTFTP99: 1, OutTokPerSec: 10, GoodputOutTokPerSecPerDevice: 10, OnPareto: true}
	d, err := Build("t", &Inputs{Sweeps: []*Sweep{{Name: "one", Rows: []sweep.Row{r}}}}, ComparisonSection{}, CostSection{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, d, "", ""); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "| **") {
			n++
			if first := strings.Split(line, " | ")[0]; first != "| **#1 ★**" {
				t.Errorf("marked row starts %q, want %q", first, "| **#1 ★**")
			}
		}
	}
	if n != 2 {
		t.Errorf("%d marked rows, want the comparison's and the cost table's:\n%s", n, b.String())
	}
}
