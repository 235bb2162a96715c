package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
)

// A run that refused every request has one KV sample, at its first
// arrival: a line through one point draws nothing, so the panel would be
// empty axes. The sample is drawn as a dot.
func TestKVPanelOfOneSampleDrawsIt(t *testing.T) {
	s := &sim.Summary{Policy: "continuous", Requests: 1, Rejected: 1,
		KV: sim.KVStats{TotalBlocks: 100, MaxUsed: 10, MaxUtil: 0.1, Series: []sim.KVPoint{{T: 0, Used: 10}}}}
	r := resultRun(&plan.Result{Name: "refused", Summary: s, Outcome: "ok"})
	fig, err := kvFigure([]*Run{r}, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	c := colorOf(0)
	if fill := fmt.Sprintf("fill:#%02X%02X%02X", c.R, c.G, c.B); !strings.Contains(string(fig.SVG), fill) {
		t.Errorf("KV panel of one sample draws no dot (%s) for it", fill)
	}
}
