package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A capacity the SLO never broke above (the search's cap) is a lower bound:
// the load figures must mark it apart from a capacity the search closed in
// on, as the sweep's ranking table prints it "≥".
func TestLoadCurveMarksCapacityLowerBound(t *testing.T) {
	curve := []sweep.CurvePoint{{Scale: 1, OutTokPerSec: 10, TTFTP99: 1}, {Scale: 2, OutTokPerSec: 19, TTFTP99: 1.1},
		{Scale: 4, OutTokPerSec: 30, TTFTP99: 1.3}}
	rows := []sweep.Row{
		{Index: 0, Rank: 1, Label: "capped", Outcome: sweep.OutcomeOK, Scale: 4, RateScale: math.NaN(), Note: "capacity ≥ search.max_scale 4",
			USDPerMOutEst: 1, SatUSDPerMOut: 1, TTFTP99: 1.3, OutTokPerSec: 30, Curve: curve},
	}
	if !rows[0].CapacityLowerBound() {
		t.Fatal("the row's note no longer makes a lower bound")
	}
	figs := loadFigs(t, rows)
	for _, name := range []string{"load-0-throughput", "load-0-p99"} {
		svg := string(figs[name].SVG)
		if !strings.Contains(svg, "≥") {
			t.Errorf("%s: the capped capacity is not marked as a lower bound (≥)", name)
		}
		if strings.Contains(svg, "highest load meeting the SLO") {
			t.Errorf("%s: the capped capacity is marked as a searched one", name)
		}
	}

	rows[0].Note = ""
	figs = loadFigs(t, rows)
	if svg := string(figs["load-0-throughput"].SVG); strings.Contains(svg, "≥") || !strings.Contains(svg, "highest load meeting the SLO") {
		t.Error("a searched capacity is not marked as one")
	}
}

// The load section's intro explains "≥" only where a shown row's capacity
// is a lower bound: with none, the explanation named a mark no figure has.
func TestLoadCurveIntroExplainsLowerBoundOnlyWhenShown(t *testing.T) {
	curve := []sweep.CurvePoint{{Scale: 1, OutTokPerSec: 10, TTFTP99: 1}, {Scale: 2, OutTokPerSec: 19, TTFTP99: 1.1}}
	rows := []sweep.Row{{Index: 0, Rank: 1, Label: "a", Outcome: sweep.OutcomeOK, Scale: 2, RateScale: math.NaN(), Note: "capacity ≥ search.max_scale 2",
		USDPerMOutEst: 1, SatUSDPerMOut: 1, TTFTP99: 1.1, OutTokPerSec: 19, Curve: curve}}
	if intro := loadIntro(t, rows); !strings.Contains(intro, "≥:") {
		t.Errorf("intro %q: a capped capacity is shown, want \"≥\" explained", intro)
	}
	rows[0].Note = ""
	if intro := loadIntro(t, rows); strings.Contains(intro, "≥") {
		t.Errorf("intro %q: no capped capacity is shown, want no \"≥\"", intro)
	}
}

func loadIntro(t *testing.T, rows []sweep.Row) string {
	t.Helper()
	blocks, err := LoadCurveSection{}.Blocks(&Inputs{Sweeps: []*Sweep{{Name: "s", Path: "s.parquet", Rows: rows}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("no load-curve blocks")
	}
	intro, ok := blocks[0].(*Text)
	if !ok {
		t.Fatalf("first block %T, want the intro text", blocks[0])
	}
	return intro.Text
}

func loadFigs(t *testing.T, rows []sweep.Row) map[string]*Figure {
	t.Helper()
	d, err := Build("t", &Inputs{Sweeps: []*Sweep{{Name: "s", Path: "s.parquet", Rows: rows}}})
	if err != nil {
		t.Fatal(err)
	}
	figs := map[string]*Figure{}
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if f, ok := b.(*Figure); ok && strings.HasPrefix(f.Name, "load-") {
				figs[f.Name] = f
			}
		}
	}
	for _, name := range []string{"load-0-throughput", "load-0-p99"} {
		if figs[name] == nil {
			t.Fatalf("no figure %s", name)
		}
	}
	return figs
}
