package report

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A capped capacity's cost at the SLO and tail penalty are taken at the
// capped load; the true capacity is higher, so each is an upper bound
// and the sweep cost table must read "≤", as the comparison table reads
// its req/s "≥", with the caption saying what "≤" means. A searched
// capacity's figures, and the load-free billed cost, read plain.
func TestSweepCostMarksCappedCostsAsUpperBounds(t *testing.T) {
	rows := []sweep.Row{
		{Index: 0, Rank: 1, Label: "capped", Outcome: sweep.OutcomeOK, Scale: 4, RateScale: math.NaN(), Note: "capacity ≥ search.max_scale 4",
			USDPerMOutEst: 1.5, SatUSDPerMOut: 1.2, TailPenalty: 0.25, USDPerMOutBilled: 7, KneeScale: math.NaN(), TTFTP99: 0.1, OutTokPerSec: 10,
			GoodputOutTokPerSecPerDevice: 10, DeviceCount: 1, Replicas: 1},
		{Index: 1, Rank: 2, Label: "searched", Outcome: sweep.OutcomeOK, Scale: 3.2, RateScale: math.NaN(),
			USDPerMOutEst: 2.5, SatUSDPerMOut: 2, TailPenalty: 0.25, USDPerMOutBilled: 8, KneeScale: math.NaN(), TTFTP99: 0.3, OutTokPerSec: 10,
			GoodputOutTokPerSecPerDevice: 10, DeviceCount: 1, Replicas: 1},
	}
	tb := sweepCostTable(t, rows)
	col := func(name string) int {
		for i, h := range tb.Header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no %q column in %q", name, tb.Header)
		return -1
	}
	want := map[string][2]string{
		"$/1M out at SLO":   {"≤$1.50", "$2.50"},
		"tail penalty":      {"≤25%", "25%"},
		"tail penalty $/1M": {"≤$0.3000", "$0.5000"},
		"$/1M out (billed)": {"$7.00", "$8.00"},
	}
	for name, cells := range want {
		c := col(name)
		for i, w := range cells {
			if got := tb.Rows[i][c]; got != w {
				t.Errorf("%s row's %s = %q, want %q", rows[i].Label, name, got, w)
			}
		}
	}
	if !strings.Contains(tb.Caption, "≤:") {
		t.Errorf("caption %q does not explain \"≤\"", tb.Caption)
	}

	rows[0].Note = ""
	tb = sweepCostTable(t, rows)
	if strings.Contains(tb.Caption, "≤") || strings.Contains(strings.Join(tb.Rows[0], " "), "≤") {
		t.Errorf("no capped capacity, yet the table reads \"≤\": caption %q, row %q", tb.Caption, tb.Rows[0])
	}

	rows[0].Note = "capacity ≥ search.max_scale 4"
	rows[0].USDPerMOutEst, rows[0].TailPenalty = math.NaN(), math.NaN()
	tb = sweepCostTable(t, rows)
	if got := tb.Rows[0][col("$/1M out at SLO")]; got != "—" {
		t.Errorf("an absent cost at the SLO reads %q, want \"—\"", got)
	}
	if strings.Contains(tb.Caption, "≤") {
		t.Errorf("no figure marked, yet the caption explains \"≤\": %q", tb.Caption)
	}
}

func sweepCostTable(t *testing.T, rows []sweep.Row) *Table {
	t.Helper()
	blocks, err := CostSection{}.Blocks(&Inputs{Sweeps: []*Sweep{{Name: "s", Path: "s.parquet", Rows: rows}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if tb, ok := b.(*Table); ok && strings.HasPrefix(tb.Caption, "Sweep s.") {
			return tb
		}
	}
	t.Fatal("no sweep cost table")
	return nil
}

// A capped capacity's goodput per device is taken at the capped load:
// the true capacity carries more, so it reads "≥", with the caption
// saying what "≥" means; a searched capacity's reads bare.
func TestSweepCostMarksCappedGoodputAsLowerBound(t *testing.T) {
	rows := []sweep.Row{
		{Index: 0, Rank: 1, Label: "capped", Outcome: sweep.OutcomeOK, Scale: 4, RateScale: math.NaN(), Note: "capacity ≥ search.max_scale 4",
			USDPerMOutEst: 1.5, SatUSDPerMOut: 1.2, TailPenalty: 0.25, USDPerMOutBilled: math.NaN(), KneeScale: math.NaN(), OutTokPerSec: 10,
			GoodputOutTokPerSecPerDevice: 412, DeviceCount: 1, Replicas: 1},
		{Index: 1, Rank: 2, Label: "searched", Outcome: sweep.OutcomeOK, Scale: 3.2, RateScale: math.NaN(),
			USDPerMOutEst: 2.5, SatUSDPerMOut: 2, TailPenalty: 0.25, USDPerMOutBilled: math.NaN(), KneeScale: math.NaN(), OutTokPerSec: 10,
			GoodputOutTokPerSecPerDevice: 97, DeviceCount: 1, Replicas: 1},
	}
	tb := sweepCostTable(t, rows)
	c := slices.Index(tb.Header, "goodput tok/s per device")
	if c < 0 {
		t.Fatalf("no goodput column in %q", tb.Header)
	}
	if got := tb.Rows[0][c]; got != "≥412" {
		t.Errorf("capped row's goodput per device = %q, want \"≥412\"", got)
	}
	if got := tb.Rows[1][c]; got != "97" {
		t.Errorf("searched row's goodput per device = %q, want \"97\"", got)
	}
	if !strings.Contains(tb.Caption, "≥:") {
		t.Errorf("caption %q does not explain \"≥\"", tb.Caption)
	}

	rows[0].GoodputOutTokPerSecPerDevice = math.NaN()
	tb = sweepCostTable(t, rows)
	if got := tb.Rows[0][c]; got != "—" {
		t.Errorf("an absent goodput reads %q, want \"—\"", got)
	}
	if strings.Contains(tb.Caption, "≥:") {
		t.Errorf("no figure marked ≥, yet the caption explains it: %q", tb.Caption)
	}
}

// A capped config's bar in the sweep cost figure is its cost at the
// capped load, an upper bound on the cost at its true capacity: the
// caption must name it as such, and name no searched config.
func TestSweepCostFigureNamesCappedBars(t *testing.T) {
	capped := sweep.Row{Index: 0, Rank: 1, Label: "capped", Outcome: sweep.OutcomeOK, Scale: 4, RateScale: math.NaN(),
		Note: "capacity ≥ search.max_scale 4", USDPerMOutEst: 1.5, SatUSDPerMOut: 1.2}
	searched := sweep.Row{Index: 1, Rank: 2, Label: "searched", Outcome: sweep.OutcomeOK, Scale: 3.2, RateScale: math.NaN(),
		USDPerMOutEst: 2.5, SatUSDPerMOut: 2}
	fig, err := sweepCostFigure("cost-sweep-0", "s", []*sweep.Row{&capped, &searched}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fig.Caption, "≤") || !strings.Contains(fig.Caption, "#1") {
		t.Errorf("caption %q does not name #1's bar an upper bound", fig.Caption)
	}
	if strings.Contains(fig.Caption, "#2") {
		t.Errorf("caption %q names a searched config's bar a bound", fig.Caption)
	}

	capped.Note = ""
	if fig, err = sweepCostFigure("cost-sweep-0", "s", []*sweep.Row{&capped, &searched}, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(fig.Caption, "≤") {
		t.Errorf("no capped config, yet the caption %q speaks of bounds", fig.Caption)
	}
}
