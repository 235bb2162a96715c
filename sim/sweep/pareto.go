package sweep

import (
	"cmp"
	"math"
	"slices"
)

// ParetoFront marks the points not dominated when minimizing both x and
// y: p is dominated when some q has q.x ≤ p.x and q.y ≤ p.y with one of
// them strictly smaller. Equal points are all on the front. A point with
// either coordinate not finite (NaN, +Inf or −Inf) is never on the front
// and dominates none: −Inf is no real cost or latency to beat others by.
func ParetoFront(x, y []float64) []bool { return frontAtBest(x, y, x, y) }

// frontAtBest generalizes ParetoFront to points known only within a box:
// point i is a load it does serve at (x[i], y[i]), and (bestX[i],
// bestY[i]) ≤ it is the best it might reach. It is on the front unless
// some q's (x, y) dominates its best: beaten there, it is beaten
// wherever it truly lies. A point with x or y not finite is never on
// the front and dominates none.
func frontAtBest(x, y, bestX, bestY []float64) []bool {
	order := make([]int, 0, len(x))
	for i := range x {
		if finite(x[i]) && finite(y[i]) {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(x[a], x[b]), cmp.Compare(y[a], y[b])) })
	// minBefore[k]: the least y among order[:k].
	minBefore := make([]float64, len(order)+1)
	minBefore[0] = math.Inf(1)
	for k, i := range order {
		minBefore[k+1] = min(minBefore[k], y[i])
	}
	on := make([]bool, len(x))
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) {
			continue
		}
		// order[:lo] has x < bestX: a y ≤ bestY dominates; order[lo] leads
		// the points at x = bestX, sorted by y: a y < bestY dominates.
		lo, _ := slices.BinarySearchFunc(order, bestX[i], func(j int, v float64) int { return cmp.Compare(x[j], v) })
		beaten := minBefore[lo] <= bestY[i] || lo < len(order) && x[order[lo]] == bestX[i] && y[order[lo]] < bestY[i]
		on[i] = !beaten
	}
	return on
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Rank orders the rows that met their SLO by estimated $ per 1M output
// tokens at the evaluated rate (ties by Index) and numbers them from 1;
// every other row gets rank 0. It then marks the Pareto fronts among the
// ranked rows: cost vs P99 E2E latency (ParetoLatency) and cost vs goodput
// output tokens per second per device (ParetoThroughput); OnPareto is
// either. A row whose capacity is a lower bound (Row.CapacityLowerBound)
// is ranked by its cost at the search's limit, an upper bound, and is
// flagged on a front unless some row beats it at its best: a cost of 0
// (nothing bounds its true cost from below) and, for latency, its P99 at
// the limit; so it leaves the latency front only for a free config with a
// lower P99, and never leaves the throughput front. Rows must be sorted
// by Index; Rank rewrites only the ranking columns, so ranking shards and
// ranking their merge agree.
func Rank(rows []Row) {
	var idx []int
	for i := range rows {
		r := &rows[i]
		r.Rank, r.OnPareto, r.ParetoLatency, r.ParetoThroughput = 0, false, false, false
		if r.SLOMet && finite(r.USDPerMOutEst) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(rows[a].USDPerMOutEst, rows[b].USDPerMOutEst), cmp.Compare(rows[a].Index, rows[b].Index))
	})
	cost, lat, negTput := make([]float64, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
	bestCost, bestNegTput := make([]float64, len(idx)), make([]float64, len(idx))
	for k, i := range idx {
		r := &rows[i]
		r.Rank = int64(k + 1)
		cost[k], lat[k], negTput[k] = r.USDPerMOutEst, r.E2EP99, -r.GoodputOutTokPerSecPerDevice
		bestCost[k], bestNegTput[k] = cost[k], negTput[k]
		if r.CapacityLowerBound() {
			// At its true capacity the cost falls by an unknown amount and
			// the goodput rises by one; the P99 only rises, so the one at
			// the limit is its best.
			bestCost[k], bestNegTput[k] = min(0, cost[k]), math.Inf(-1)
		}
	}
	fl, ft := frontAtBest(cost, lat, bestCost, lat), frontAtBest(cost, negTput, bestCost, bestNegTput)
	for k, i := range idx {
		r := &rows[i]
		r.ParetoLatency, r.ParetoThroughput = fl[k], ft[k]
		r.OnPareto = fl[k] || ft[k]
	}
}
