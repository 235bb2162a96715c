package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A capped config is placed by its cost at the capped load, an upper
// bound, and its goodput per device there, a lower bound: each Pareto
// figure's caption must name it as such, and name no searched config.
func TestParetoFiguresNameCappedConfigs(t *testing.T) {
	capped := sweep.Row{Index: 0, Rank: 1, Label: "capped", Outcome: sweep.OutcomeOK, Scale: 4, RateScale: math.NaN(),
		Note: "capacity ≥ search.max_scale 4", USDPerMOutEst: 1.5, TTFTP99: 0.4, GoodputOutTokPerSecPerDevice: 400, DeviceCount: 1, Replicas: 1}
	searched := sweep.Row{Index: 1, Rank: 2, Label: "searched", Outcome: sweep.OutcomeOK, Scale: 3.2, RateScale: math.NaN(),
		USDPerMOutEst: 2.5, TTFTP99: 0.3, GoodputOutTokPerSecPerDevice: 300, DeviceCount: 1, Replicas: 1}
	captions := func() map[string]string {
		t.Helper()
		blocks, err := ParetoSection{}.Blocks(&Inputs{Sweeps: []*Sweep{{Name: "s", Rows: []sweep.Row{capped, searched}}}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, b := range blocks {
			if f, ok := b.(*Figure); ok {
				out[f.Name] = f.Caption
			}
		}
		if len(out) != 2 {
			t.Fatalf("figures %v, want the latency and the throughput one", out)
		}
		return out
	}
	for name, caption := range captions() {
		if !strings.Contains(caption, "#1") || !strings.Contains(caption, "≤") {
			t.Errorf("%s: caption %q does not name #1's cost an upper bound", name, caption)
		}
		if strings.HasSuffix(name, "-throughput") && !strings.Contains(caption, "≥") {
			t.Errorf("%s: caption %q does not name #1's goodput a lower bound", name, caption)
		}
		if strings.Contains(caption, "#2") {
			t.Errorf("%s: caption %q names a searched config a bound", name, caption)
		}
	}

	capped.Note = ""
	for name, caption := range captions() {
		if strings.ContainsAny(caption, "≤≥") || strings.Contains(caption, "#1") {
			t.Errorf("%s: no capped config, yet the caption %q speaks of bounds", name, caption)
		}
	}
}
