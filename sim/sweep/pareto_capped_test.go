package sweep

import (
	"math"
	"testing"
)

// cappedRow is a ranked-to-be row whose capacity the search capped at
// search.max_scale: its cost is an upper bound, its goodput a lower one.
func cappedRow(index int64, cost, e2e, perDev float64) Row {
	r := searchedRow(index, cost, e2e, perDev)
	r.Note = capacityAtLeast + "search.max_scale 4"
	return r
}

func searchedRow(index int64, cost, e2e, perDev float64) Row {
	return Row{Index: index, Outcome: OutcomeOK, RateScale: math.NaN(), Scale: 4, SLOMet: true,
		USDPerMOutEst: cost, E2EP99: e2e, GoodputOutTokPerSecPerDevice: perDev}
}

// A row that beats a capped row at the search's limit need not beat it
// at its true capacity, where the capped row costs less and serves more
// per device: only a row as cheap as the capped row could ever be (no
// cost at all) with a lower P99 rules it off the latency front, and no
// row rules it off the throughput front. Its own point, a load it does
// serve within the SLO, still rules others off.
func TestRankKeepsCappedRowsOnTheFrontsTheyMayJoin(t *testing.T) {
	rows := []Row{
		searchedRow(0, 1, 0.5, 500),
		cappedRow(1, 2, 0.8, 400),   // beaten at the limit on both axes
		searchedRow(2, 3, 0.9, 300), // beaten by #1's real point
		cappedRow(3, 4, 0.4, 200),   // beaten on cost alone
	}
	Rank(rows)
	want := []struct{ lat, thr bool }{{true, true}, {true, true}, {false, false}, {true, true}}
	for i, w := range want {
		r := rows[i]
		if r.ParetoLatency != w.lat || r.ParetoThroughput != w.thr || r.OnPareto != (w.lat || w.thr) {
			t.Errorf("row %d (capped %v): latency %v throughput %v on %v, want %v %v",
				i, r.CapacityLowerBound(), r.ParetoLatency, r.ParetoThroughput, r.OnPareto, w.lat, w.thr)
		}
	}

	// A free config with a lower P99 beats the capped one at any load it
	// could serve: off the latency front, still on the throughput one.
	rows = []Row{searchedRow(0, 0, 0.5, 100), cappedRow(1, 2, 0.8, 50)}
	Rank(rows)
	if rows[1].ParetoLatency || !rows[1].ParetoThroughput {
		t.Errorf("capped row beside a free, faster one: latency %v throughput %v, want false true",
			rows[1].ParetoLatency, rows[1].ParetoThroughput)
	}
}
