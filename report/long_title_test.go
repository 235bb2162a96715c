package report

import (
	"html"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// Two sweeps of one spec are named with their paths, which can be long: a
// sweep's figure titles, centred, would run off both edges of the figure
// (its start, "Throughput vs offered load", cut as well as the path). A
// title is shortened in its middle to the figure's width, keeping its
// start and its end, where two such paths differ most often.
func TestLongSweepNameFitsFigureTitles(t *testing.T) {
	long := "llama-70b (experiments/2026-12-01/h100-llama3-70b-instruct-continuous-batching/sweep-out-with-prefix-cache/sweep.parquet)"
	curve := []sweep.CurvePoint{{Scale: 1, OutTokPerSec: 5, TTFTP99: 0.2}, {Scale: 2, OutTokPerSec: 8, TTFTP99: 0.4}}
	r := sweep.Row{Rank: 1, Label: "c", Outcome: sweep.OutcomeOK, Scale: 2, KneeScale: 1,
		USDPerMOutEst: 1, SatUSDPerMOut: 1, TTFTP99: 0.2, OutTokPerSec: 8, GoodputOutTokPerSecPerDevice: 8, Curve: curve}
	d, err := Build("t", &Inputs{Sweeps: []*Sweep{{Name: long, Path: "s.parquet", Rows: []sweep.Row{r}}}})
	if err != nil {
		t.Fatal(err)
	}
	style := newPlot("", "", "").Title.TextStyle
	for name, start := range map[string]string{"load-0-throughput": "Throughput vs offered load", "load-0-p99": "P99 TTFT vs offered load",
		"pareto-0-latency": "Cost vs P99 TTFT", "cost-sweep-0": "Cost at the SLO"} {
		svg := figureSVG(d, name)
		m := svgText.FindStringSubmatch(svg)
		if m == nil {
			t.Errorf("%s: no figure or no title", name)
			continue
		}
		title := html.UnescapeString(m[1])
		if w := style.Width(title); w > figW {
			t.Errorf("%s: title %q is %.0fpt wide, want at most the figure's %.0fpt", name, title, w.Points(), figW.Points())
		}
		if !strings.HasPrefix(title, start) || !strings.HasSuffix(title, "/sweep.parquet)") {
			t.Errorf("%s: title %q, want it to start %q and end with the path's end", name, title, start)
		}
	}
}
