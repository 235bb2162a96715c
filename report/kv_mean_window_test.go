package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
)

// A run over no time has no KV mean (summary.json writes null, which
// decodes as 0): the cost table and the KV panel show "—", not "0%". Its
// peak was measured and stands.
func TestKVMeanWithoutAWindowNotMeasured(t *testing.T) {
	s := &sim.Summary{Policy: "continuous", Requests: 1, Rejected: 1,
		KV: sim.KVStats{TotalBlocks: 100, MaxUsed: 10, MaxUtil: 0.1, Series: []sim.KVPoint{{T: 0, Used: 10}}}}
	r := resultRun(&plan.Result{Name: "refused", Summary: s, Outcome: "ok"})
	blocks, err := CostSection{}.Blocks(&Inputs{Runs: []*Run{r}})
	if err != nil {
		t.Fatal(err)
	}
	if got := blocks[0].(*Table).Rows[0][8]; got != "— / 10%" {
		t.Errorf("KV used mean / max = %q, want %q", got, "— / 10%")
	}
	fig, err := kvFigure([]*Run{r}, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if svg := string(fig.SVG); !strings.Contains(svg, "mean —, peak 10%") {
		t.Errorf("KV panel title lacks %q", "mean —, peak 10%")
	}
	measured := handRun("measured", 0.1)
	if fig, err = kvFigure([]*Run{measured}, []int{1}); err != nil || !strings.Contains(string(fig.SVG), "mean 20%, peak 50%") {
		t.Errorf("measured run's KV panel lacks %q (err %v)", "mean 20%, peak 50%", err)
	}
}
