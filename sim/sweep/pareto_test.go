package sweep

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestParetoFront(t *testing.T) {
	x := []float64{1, 2, 3, 1, 2, 5, math.NaN(), 0.5, math.Inf(-1)}
	y := []float64{5, 3, 4, 5, 1, 0.5, 0, math.Inf(1), 0}
	want := []bool{true, false, false, true, true, true, false, false, false}
	got := ParetoFront(x, y)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d (%v, %v): on = %v, want %v", i, x[i], y[i], got[i], want[i])
		}
	}
}

// The sweep agrees with the definition, checked pairwise.
func TestParetoFrontMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		n := 1 + rng.IntN(40)
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i], y[i] = float64(rng.IntN(6)), float64(rng.IntN(6))
		}
		got := ParetoFront(x, y)
		for i := range n {
			dominated := false
			for j := range n {
				if x[j] <= x[i] && y[j] <= y[i] && (x[j] < x[i] || y[j] < y[i]) {
					dominated = true
				}
			}
			if got[i] == dominated {
				t.Fatalf("point %d (%v, %v) of %v %v: on = %v", i, x[i], y[i], x, y, got[i])
			}
		}
	}
}

func TestRank(t *testing.T) {
	nan := math.NaN()
	rows := []Row{
		{Index: 0, SLOMet: true, USDPerMOutEst: 2, E2EP99: 1, GoodputOutTokPerSecPerDevice: 10},
		{Index: 1, SLOMet: false, USDPerMOutEst: 0.1, E2EP99: 1},
		{Index: 2, SLOMet: true, USDPerMOutEst: 1, E2EP99: 3, GoodputOutTokPerSecPerDevice: 5},
		{Index: 3, SLOMet: true, USDPerMOutEst: 1, E2EP99: 3, GoodputOutTokPerSecPerDevice: 5},
		{Index: 4, SLOMet: true, USDPerMOutEst: nan},
		{Index: 5, SLOMet: true, USDPerMOutEst: 3, E2EP99: 2, GoodputOutTokPerSecPerDevice: 20},
	}
	Rank(rows)
	wantRank := []int64{3, 0, 1, 2, 0, 4}
	for i, r := range rows {
		if r.Rank != wantRank[i] {
			t.Errorf("row %d rank %d, want %d", i, r.Rank, wantRank[i])
		}
	}
	if !rows[0].ParetoLatency || !rows[2].ParetoLatency || rows[5].ParetoLatency {
		t.Errorf("latency front: %v %v %v", rows[0].ParetoLatency, rows[2].ParetoLatency, rows[5].ParetoLatency)
	}
	if !rows[5].ParetoThroughput || !rows[0].ParetoThroughput || rows[1].OnPareto {
		t.Errorf("throughput front wrong")
	}
}
