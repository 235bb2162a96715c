package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A label, name or path holding markup (a script tag, table pipes,
// Markdown emphasis, a line break) is written as text in both formats:
// no figure, table or heading of either lets it through as markup, even
// for a sweep row whose curve is all NaN or a run with no cost.
func TestHostileLabelsStayText(t *testing.T) {
	evil := "<script>alert(\"x\")</script> | a|b `c` *d* \n# h"
	row := func(idx, rank int64, cost float64, curve []sweep.CurvePoint) sweep.Row {
		outcome := sweep.OutcomeSLOViolated
		if rank > 0 {
			outcome = sweep.OutcomeOK
		}
		return sweep.Row{Index: idx, Rank: rank, Label: evil, Outcome: outcome, Scale: 1, USDPerMOutEst: cost,
			SatUSDPerMOut: cost / 2, TailPenalty: 1, KneeScale: math.NaN(), TTFTP99: cost, OutTokPerSec: 10,
			GoodputOutTokPerSecPerDevice: 10, ParetoLatency: rank == 0, Curve: curve}
	}
	one := []sweep.CurvePoint{{Scale: 1, OutTokPerSec: 5, TTFTP99: 0.2}, {Scale: 1, OutTokPerSec: 5, TTFTP99: 0.2}}
	nan := []sweep.CurvePoint{{Scale: 1, OutTokPerSec: math.NaN(), TTFTP99: math.NaN()}, {Scale: 2, OutTokPerSec: math.NaN(), TTFTP99: math.NaN()}}
	in := &Inputs{Sources: []string{evil}, Sweeps: []*Sweep{{Name: evil, Path: evil, Rows: []sweep.Row{row(3, 1, 1, one), row(7, 0, 2, nan)}}},
		Runs: []*Run{{Name: evil, Kind: evil, Metrics: Metrics{ReqPerSec: 1, USDPerMOutEst: 1, TTFTP99: 1, Devices: 1, OutTokPerSec: 3}}, {Name: evil + "2", Metrics: Metrics{USDPerMOutEst: 2, TTFTP99: 1}}}}
	d, err := Build(evil, in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range []string{"r.html", "r.md"} {
		if err := WriteFile(filepath.Join(dir, n), d); err != nil {
			t.Fatal(err)
		}
		checkNoScript(t, filepath.Join(dir, n))
	}
	figs, err := filepath.Glob(filepath.Join(dir, "r_files", "*"))
	if err != nil || len(figs) == 0 {
		t.Fatalf("the Markdown report's figures: %v, %v", figs, err)
	}
	for _, f := range figs {
		checkNoScript(t, f)
	}
}

func checkNoScript(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "<script") {
		t.Errorf("%s: a label's <script> tag is written as markup", path)
	}
}
