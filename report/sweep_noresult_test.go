package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A sweep whose configs all failed the SLO did run them: the report said
// none "ran to a result", where the sweep printed 11 infeasible and 1
// skipped. It gives the outcomes as the sweep counted them.
func TestSweepWithoutResultsGivesOutcomes(t *testing.T) {
	sw := &Sweep{Name: "tight.toml"}
	for i := 0; i < 3; i++ {
		sw.Rows = append(sw.Rows, sweep.Row{Index: int64(i), Outcome: sweep.OutcomeInfeasible})
	}
	sw.Rows = append(sw.Rows, sweep.Row{Index: 3, Outcome: sweep.OutcomeSkipped})
	blocks, err := ComparisonSection{}.Blocks(&Inputs{Sweeps: []*Sweep{sw}})
	if err != nil {
		t.Fatal(err)
	}
	got := blocks[0].(*Text).Text
	if !strings.Contains(got, "infeasible 3, skipped 1") {
		t.Errorf("%q: want the outcomes counted (infeasible 3, skipped 1)", got)
	}
}
