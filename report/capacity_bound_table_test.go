package report

import (
	"math"
	"slices"
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

// The same capped config's estimated $/1M out, taken at the capped load,
// is an upper bound: the comparison table reads it "≤" as its req/s "≥",
// and the caption says what "≤" means; the billed cost, per token
// whatever the load, and a searched capacity's cost read plain.
func TestComparisonMarksCappedCostUpperBound(t *testing.T) {
	rows := []sweep.Row{
		{Index: 0, Rank: 1, Label: "capped", Outcome: sweep.OutcomeOK, Scale: 4, RateScale: math.NaN(), Note: "capacity ≥ search.max_scale 4",
			ReqPerSec: 18.58, USDPerMOutEst: 1.5, USDPerMOutBilled: 7, SatUSDPerMOut: 1, TTFTP99: 0.1, OutTokPerSec: 4778},
		{Index: 1, Rank: 2, Label: "searched", Outcome: sweep.OutcomeOK, Scale: 3.2, RateScale: math.NaN(),
			ReqPerSec: 14.63, USDPerMOutEst: 2.5, USDPerMOutBilled: 8, SatUSDPerMOut: 1, TTFTP99: 0.3, OutTokPerSec: 3764},
	}
	tb := comparisonTable(t, rows)
	col := func(name string) int {
		for i, h := range tb.Header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no %q column in %q", name, tb.Header)
		return -1
	}
	for name, want := range map[string][2]string{"$/1M out (est.)": {"≤$1.50", "$2.50"}, "$/1M out (billed)": {"$7.00", "$8.00"}} {
		for i, w := range want {
			if got := tb.Rows[i][col(name)]; got != w {
				t.Errorf("%s row's %s = %q, want %q", rows[i].Label, name, got, w)
			}
		}
	}
	if !strings.Contains(tb.Caption, "≤") {
		t.Errorf("caption %q does not explain \"≤\"", tb.Caption)
	}
	rows[0].Note = ""
	if tb := comparisonTable(t, rows); strings.Contains(tb.Caption, "≤") || strings.Contains(tb.Rows[0][col("$/1M out (est.)")], "≤") {
		t.Errorf("no capped capacity, yet the table reads \"≤\": caption %q, row %q", tb.Caption, tb.Rows[0])
	}
}

// A capped config's output tok/s is taken at the capped load as its
// req/s is: at the true capacity it is higher, so it reads "≥" as its
// req/s does; a searched capacity's reads plain.
func TestComparisonMarksCappedOutputLowerBound(t *testing.T) {
	rows := []sweep.Row{
		{Index: 0, Rank: 1, Label: "capped", Outcome: sweep.OutcomeOK, Scale: 4, RateScale: math.NaN(), Note: "capacity ≥ search.max_scale 4",
			ReqPerSec: 18.58, USDPerMOutEst: 1, SatUSDPerMOut: 1, TTFTP99: 0.1, OutTokPerSec: 4778},
		{Index: 1, Rank: 2, Label: "searched", Outcome: sweep.OutcomeOK, Scale: 3.2, RateScale: math.NaN(),
			ReqPerSec: 14.63, USDPerMOutEst: 2, SatUSDPerMOut: 1, TTFTP99: 0.3, OutTokPerSec: 3764},
	}
	tb := comparisonTable(t, rows)
	c := slices.Index(tb.Header, "output tok/s")
	if c < 0 {
		t.Fatalf("no output tok/s column in %q", tb.Header)
	}
	for i, want := range []string{"≥4778", "3764"} {
		if got := tb.Rows[i][c]; got != want {
			t.Errorf("%s row's output tok/s = %q, want %q", rows[i].Label, got, want)
		}
	}
}
