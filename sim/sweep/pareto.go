package sweep

import (
	"cmp"
	"math"
	"slices"
)

// ParetoFront marks the points not dominated when minimizing both x and
// y: p is dominated when some q has q.x ≤ p.x and q.y ≤ p.y with one of
// them strictly smaller. Equal points are all on the front. NaN counts as
// +Inf; a point with either coordinate NaN or +Inf is never on the front.
func ParetoFront(x, y []float64) []bool {
	n := len(x)
	on := make([]bool, n)
	order := make([]int, 0, n)
	for i := range n {
		if finite(x[i]) && finite(y[i]) {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(x[a], x[b]), cmp.Compare(y[a], y[b]), cmp.Compare(a, b))
	})
	prevMin := math.Inf(1) // least y among points with strictly smaller x
	for g := 0; g < len(order); {
		h := g
		for h < len(order) && x[order[h]] == x[order[g]] {
			h++
		}
		groupMin := y[order[g]] // sorted by y within the group
		for _, i := range order[g:h] {
			on[i] = y[i] == groupMin && y[i] < prevMin
		}
		prevMin = min(prevMin, groupMin)
		g = h
	}
	return on
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Rank orders the rows that met their SLO by estimated $ per 1M output
// tokens at the evaluated rate (ties by Index) and numbers them from 1;
// every other row gets rank 0. It then marks the Pareto fronts among the
// ranked rows: cost vs P99 E2E latency (ParetoLatency) and cost vs goodput
// output tokens per second per device (ParetoThroughput); OnPareto is
// either. Rows must be sorted by Index; Rank rewrites only the ranking
// columns, so ranking shards and ranking their merge agree.
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
	cost := make([]float64, len(idx))
	lat := make([]float64, len(idx))
	negTput := make([]float64, len(idx))
	for k, i := range idx {
		r := &rows[i]
		r.Rank = int64(k + 1)
		cost[k], lat[k], negTput[k] = r.USDPerMOutEst, r.E2EP99, -r.GoodputOutTokPerSecPerDevice
	}
	fl, ft := ParetoFront(cost, lat), ParetoFront(cost, negTput)
	for k, i := range idx {
		r := &rows[i]
		r.ParetoLatency, r.ParetoThroughput = fl[k], ft[k]
		r.OnPareto = fl[k] || ft[k]
	}
}
