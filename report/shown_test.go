package report

import (
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// The table shows the best ranked configs, then the rest of the Pareto
// front: sweep.Rank flags the fronts among ranked rows only, so a front
// config ranked beyond the first ten must still be shown.
func TestShownRowsKeepsParetoBeyondTopRanks(t *testing.T) {
	sw := &Sweep{Name: "s"}
	for i := 1; i <= 15; i++ {
		sw.Rows = append(sw.Rows, sweep.Row{Index: int64(i), Label: "c", Rank: int64(i), Outcome: sweep.OutcomeOK,
			USDPerMOutEst: float64(i)})
	}
	sw.Rows[0].ParetoLatency, sw.Rows[0].OnPareto = true, true
	sw.Rows[13].ParetoLatency, sw.Rows[13].OnPareto = true, true // rank 14: slower configs cost less... on the front by latency
	rows := shownRows(sw)
	var ranks []int64
	found := false
	for _, r := range rows {
		ranks = append(ranks, r.Rank)
		found = found || r.Rank == 14
	}
	if !found {
		t.Errorf("shown ranks %v: want the first ten and rank 14, which is on the Pareto front", ranks)
	}
	if len(rows) != 11 {
		t.Errorf("shown %d rows (ranks %v), want 11", len(rows), ranks)
	}
}
