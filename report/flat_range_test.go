package report

import (
	"html"
	"regexp"
	"strconv"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/sweep"
)

var svgText = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

// negativeLabels are the texts of svg that read as numbers below 0.
func negativeLabels(svg string) []string {
	var neg []string
	for _, m := range svgText.FindAllStringSubmatch(svg, -1) {
		if v, err := strconv.ParseFloat(html.UnescapeString(m[1]), 64); err == nil && v < 0 {
			neg = append(neg, m[1])
		}
	}
	return neg
}

// An axis whose values are all one (a single request, a P99 alike at
// every load) is drawn from 0 to twice that value: gonum/plot's own ±1
// put a 0.4 ms TTFT on an axis from -0.6 to 1.4 ms, and a 0.2 s P99 on
// one from -0.8 to 1.2 s, latencies below 0 that no run has.
func TestFlatAxisHasNoNegativeLatencies(t *testing.T) {
	one := handRun("one request", 1)
	one.Lat = &Latencies{TTFT: []float64{0.0004}, E2E: []float64{0.0008}}
	d, err := Build("t", &Inputs{Runs: []*Run{one}}, LatencyCDFSection{})
	if err != nil {
		t.Fatal(err)
	}
	figs := map[string]string{"cdf-ttft": figureSVG(d, "cdf-ttft")}
	curve := []sweep.CurvePoint{{Scale: 1, OutTokPerSec: 5, TTFTP99: 0.2}, {Scale: 2, OutTokPerSec: 8, TTFTP99: 0.2}}
	r := sweep.Row{Rank: 1, Label: "c", Outcome: sweep.OutcomeOK, Scale: 2, KneeScale: 1,
		USDPerMOutEst: 1, SatUSDPerMOut: 1, TTFTP99: 0.2, OutTokPerSec: 8, Curve: curve}
	for name, f := range loadFigs(t, []sweep.Row{r}) {
		figs[name] = string(f.SVG)
	}
	for name, svg := range figs {
		if svg == "" {
			t.Errorf("no figure %s", name)
		}
		if neg := negativeLabels(svg); len(neg) > 0 {
			t.Errorf("%s: axis labels %q below 0, want the axis from 0", name, neg)
		}
	}
}

// Runs priced at nothing (no device or energy price) put every cost at
// $0: the cost axes start at 0 rather than at gonum/plot's -1.
func TestZeroCostAxisHasNoNegativeDollars(t *testing.T) {
	a, b := handRun("a", 1), handRun("b", 2)
	for _, r := range []*Run{a, b} {
		r.Result.Cost = model.Prices{}.Cost(model.Usage{Devices: 1, WallSeconds: 100, InputTokens: 1e4, OutputTokens: 1e4})
		r.Metrics.USDPerMOutEst = 0
	}
	d, err := Build("t", &Inputs{Runs: []*Run{a, b}}, ParetoSection{}, CostSection{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pareto-runs-latency", "pareto-runs-throughput", "cost-runs"} {
		svg := figureSVG(d, name)
		if svg == "" {
			t.Errorf("no figure %s", name)
		}
		if neg := negativeLabels(svg); len(neg) > 0 {
			t.Errorf("%s: axis labels %q below 0, want the cost axis from $0", name, neg)
		}
	}
}

// A run whose only KV sample is at its first arrival (one request served
// in one step) has a KV time axis from 0, not gonum/plot's -1 to 1: no
// run has a time before its first arrival.
func TestOneKVSampleAxisHasNoNegativeTime(t *testing.T) {
	one := handRun("one step", 1)
	one.Result.Summary.KV.Series = []sim.KVPoint{{T: 0, Used: 10}}
	d, err := Build("t", &Inputs{Runs: []*Run{one}})
	if err != nil {
		t.Fatal(err)
	}
	svg := figureSVG(d, "kv-utilization")
	if svg == "" {
		t.Fatal("no figure kv-utilization")
	}
	if neg := negativeLabels(svg); len(neg) > 0 {
		t.Errorf("axis labels %q below 0, want the time axis from 0", neg)
	}
}
