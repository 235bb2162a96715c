package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
)

// A simulated plan over which no time elapsed (its one request refused on
// arrival) has no throughput: it shows "—" and is never a −100%
// throughput regression; its failures still count.
func TestZeroMakespanThroughputNotMeasured(t *testing.T) {
	s := &sim.Summary{Policy: "continuous", Requests: 1, Rejected: 1, KV: sim.KVStats{TotalBlocks: 100}}
	b := resultRun(&plan.Result{Name: "refused", Summary: s, Outcome: "ok"})
	if m := b.Metrics; known(m.ReqPerSec) || known(m.OutTokPerSec) {
		t.Errorf("throughput %v req/s, %v tok/s: want not measured", m.ReqPerSec, m.OutTokPerSec)
	}
	a := handRun("a", 1)
	for _, c := range compareRuns(t, a, b, 0.1) {
		if strings.HasPrefix(c.Metric, "throughput") && c.Regressed {
			t.Errorf("%s flagged (%v → %v): want it unknown, not a regression", c.Metric, c.A, c.B)
		}
		if c.Metric == "failed requests (share)" && !c.Regressed {
			t.Errorf("failure share %v → %v not flagged", c.A, c.B)
		}
	}
	blocks, err := ComparisonSection{}.Blocks(&Inputs{Runs: []*Run{b}})
	if err != nil {
		t.Fatal(err)
	}
	if row := blocks[0].(*Table).Rows[0]; row[5] != "—" || row[6] != "—" {
		t.Errorf("req/s %q, output tok/s %q: want —", row[5], row[6])
	}
	blocks, err = CostSection{}.Blocks(&Inputs{Runs: []*Run{b}})
	if err != nil {
		t.Fatal(err)
	}
	if row := blocks[0].(*Table).Rows[0]; row[11] != "—" || row[12] != "—" {
		t.Errorf("out tok/s per device %q, device busy %q: want —", row[11], row[12])
	}
}
