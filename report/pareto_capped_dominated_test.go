package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A capped config's point is its cost at the search's limit (an upper
// bound) and its goodput there (a lower bound): a config that beats it
// there may not beat it at its true capacity, so each figure's caption
// must say that the capped config left off the front may belong on it,
// and say nothing of the kind where the capped config is on the front.
func TestParetoCaptionNamesCappedConfigOffTheFront(t *testing.T) {
	searched := sweep.Row{Index: 0, Rank: 1, Label: "searched", Outcome: sweep.OutcomeOK, Scale: 3.2, RateScale: math.NaN(),
		USDPerMOutEst: 1, TTFTP99: 0.2, GoodputOutTokPerSecPerDevice: 500, DeviceCount: 1, Replicas: 1}
	capped := sweep.Row{Index: 1, Rank: 2, Label: "capped", Outcome: sweep.OutcomeOK, Scale: 4, RateScale: math.NaN(),
		Note: "capacity ≥ search.max_scale 4", USDPerMOutEst: 1.5, TTFTP99: 0.4, GoodputOutTokPerSecPerDevice: 400, DeviceCount: 1, Replicas: 1}
	captions := func(rows ...sweep.Row) map[string]string {
		t.Helper()
		blocks, err := ParetoSection{}.Blocks(&Inputs{Sweeps: []*Sweep{{Name: "s", Rows: rows}}})
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
	for name, caption := range captions(searched, capped) {
		if !strings.Contains(caption, "#2 may join the front at its true capacity") {
			t.Errorf("%s: caption %q does not say the capped #2, off the front at the limit, may belong on it", name, caption)
		}
	}

	capped.USDPerMOutEst, capped.Rank, searched.Rank = 0.5, 1, 2 // now the cheapest: on both fronts
	for name, caption := range captions(searched, capped) {
		if strings.Contains(caption, "may join the front") {
			t.Errorf("%s: the capped config is on the front, yet the caption %q says it may join it", name, caption)
		}
	}
}
