package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// paretoFigureSVGs builds the sweep's Pareto figures: name → SVG.
func paretoFigureSVGs(t *testing.T, rows []sweep.Row) map[string]*Figure {
	t.Helper()
	blocks, err := ParetoSection{}.Blocks(&Inputs{Sweeps: []*Sweep{{Name: "s", Rows: rows}}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Figure{}
	for _, b := range blocks {
		if f, ok := b.(*Figure); ok {
			out[f.Name] = f
		}
	}
	if len(out) != 2 {
		t.Fatalf("figures %v, want the latency and the throughput one", out)
	}
	return out
}

// paretoRows makes n ranked configs, the first capped of them capped.
func paretoRows(n, capped int) []sweep.Row {
	rows := make([]sweep.Row, n)
	for i := range rows {
		rows[i] = sweep.Row{Index: int64(i), Rank: int64(i + 1), Label: fmt.Sprint("c", i), Outcome: sweep.OutcomeOK, Scale: 3,
			RateScale: math.NaN(), USDPerMOutEst: 1 + float64(i), TTFTP99: 0.1 * float64(i+1), GoodputOutTokPerSecPerDevice: 100 + float64(i),
			DeviceCount: 1, Replicas: 1}
		if i < capped {
			rows[i].Note = "capacity ≥ search.max_scale 4"
		}
	}
	return rows
}

// With more configs than the figure labels, only a mark on the plot
// itself tells which points are capped (placed at the search's limit).
func TestParetoFiguresMarkCappedPoints(t *testing.T) {
	const legend = "capacity capped by the search (3)"
	for name, f := range paretoFigureSVGs(t, paretoRows(20, 3)) {
		if !strings.Contains(string(f.SVG), legend) {
			t.Errorf("%s: no legend entry %q for the capped points", name, legend)
		}
	}
	for name, f := range paretoFigureSVGs(t, paretoRows(20, 0)) {
		if strings.Contains(string(f.SVG), "capped by the search") {
			t.Errorf("%s: no config is capped, yet the legend marks some", name)
		}
	}
}

// A sweep of hundreds of configs can cap hundreds: the caption names a
// few and counts the rest, as the figure rings them all.
func TestParetoCaptionCountsCappedConfigsPastAFew(t *testing.T) {
	for name, f := range paretoFigureSVGs(t, paretoRows(40, 30)) {
		if !strings.Contains(f.Caption, "#8 and 22 more") || strings.Contains(f.Caption, "#9,") || strings.Contains(f.Caption, "#30") {
			t.Errorf("%s: caption %q, want the capped configs named up to #8, then counted", name, f.Caption)
		}
	}
	for name, f := range paretoFigureSVGs(t, paretoRows(40, 2)) {
		if !strings.Contains(f.Caption, "#1, #2") || strings.Contains(f.Caption, "more") {
			t.Errorf("%s: caption %q, want both capped configs named, none counted", name, f.Caption)
		}
	}
}
