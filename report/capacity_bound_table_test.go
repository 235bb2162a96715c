package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A capped capacity is a lower bound: the comparison table's req/s, the
// load the config was found to carry, must read "≥" as the sweep's own
// table prints the scale, and the caption must say what "≥" means; a
// searched capacity reads plain.
func TestComparisonMarksCapacityLowerBound(t *testing.T) {
	rows := []sweep.Row{
		{Index: 0, Rank: 1, Label: "capped", Outcome: sweep.OutcomeOK, Scale: 4, RateScale: math.NaN(), Note: "capacity ≥ search.max_scale 4",
			ReqPerSec: 18.58, USDPerMOutEst: 1, SatUSDPerMOut: 1, TTFTP99: 0.1, OutTokPerSec: 4778},
		{Index: 1, Rank: 2, Label: "searched", Outcome: sweep.OutcomeOK, Scale: 3.2, RateScale: math.NaN(),
			ReqPerSec: 14.63, USDPerMOutEst: 2, SatUSDPerMOut: 1, TTFTP99: 0.3, OutTokPerSec: 3764},
	}
	tb := comparisonTable(t, rows)
	col := -1
	for i, h := range tb.Header {
		if h == "req/s" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no req/s column in %q", tb.Header)
	}
	if got := tb.Rows[0][col]; got != "≥18.58" {
		t.Errorf("capped row's req/s = %q, want \"≥18.58\"", got)
	}
	if got := tb.Rows[1][col]; got != "14.63" {
		t.Errorf("searched row's req/s = %q, want \"14.63\"", got)
	}
	if !strings.Contains(tb.Caption, "≥:") {
		t.Errorf("caption %q does not explain \"≥\"", tb.Caption)
	}

	rows[0].Note = ""
	if tb := comparisonTable(t, rows); strings.Contains(tb.Caption, "≥") || strings.Contains(tb.Rows[0][col], "≥") {
		t.Errorf("no capped capacity, yet the table reads \"≥\": caption %q, req/s %q", tb.Caption, tb.Rows[0][col])
	}
}

func comparisonTable(t *testing.T, rows []sweep.Row) *Table {
	t.Helper()
	blocks, err := ComparisonSection{}.Blocks(&Inputs{Sweeps: []*Sweep{{Name: "s", Path: "s.parquet", Rows: rows}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if tb, ok := b.(*Table); ok {
			return tb
		}
	}
	t.Fatal("no comparison table")
	return nil
}
