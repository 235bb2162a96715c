package sweep

import (
	"math"
	"slices"
	"strings"
)

// CurvePoint is the outcome of one complete run on the load curve.
// Latencies are seconds; rates are per second over the run's makespan.
type CurvePoint struct {
	Scale        float64 // arrival-rate scale
	ReqPerSec    float64 // completed requests per second
	OutTokPerSec float64 // output tokens per second
	TTFTP99      float64 // s
	E2EP99       float64 // s
	USDPerMOut   float64 // estimated $ per 1M output tokens at this load
}

// Knee returns the scale of the first curve point beyond which more load
// adds less than thrPct % output throughput while P99 TTFT or P99 E2E
// grows by more than p99Pct %: for points a, b with b at twice a's scale,
// the knee is a when OutTokPerSec(b)/OutTokPerSec(a) − 1 < thrPct/100 and
// P99(b)/P99(a) − 1 > p99Pct/100 for TTFT or E2E; a NaN P99 (no sample at
// that point) grows by nothing. The thresholds are for one doubling of
// load, the step of the search's grid, so only doublings are judged: a
// point off the grid (the capacity between two grid scales) is shown on
// the curve but judged in no pair, since a shorter step gains less
// throughput and less P99 alike and would move the knee onto it; and a
// pair across a grid scale left off (a failed run) is two doublings, not
// judged either. It is NaN when no pair qualifies. The curve must be
// sorted by scale.
func Knee(curve []CurvePoint, thrPct, p99Pct float64) float64 {
	for i, a := range curve {
		b, ok := doubled(curve[i+1:], a.Scale)
		if !ok || !(a.OutTokPerSec > 0) {
			continue
		}
		gain := b.OutTokPerSec/a.OutTokPerSec - 1
		if gain >= thrPct/100 {
			continue
		}
		if growth(a.TTFTP99, b.TTFTP99) > p99Pct/100 || growth(a.E2EP99, b.E2EP99) > p99Pct/100 {
			return a.Scale
		}
	}
	return math.NaN()
}

// doubled returns the point of above at twice scale. Grid scales are
// StartScale·2^j, exact in float64, so equality finds them.
func doubled(above []CurvePoint, scale float64) (CurvePoint, bool) {
	for _, p := range above {
		if p.Scale == 2*scale {
			return p, true
		}
	}
	return CurvePoint{}, false
}

// kneeGapNote names the grid scales left off between the curve's points,
// across which Knee judged nothing; "" when there are none. A scale off
// the grid (the capacity) is judged in no pair, so leaving it off loses
// no judgement and is not named.
func kneeGapNote(curve []CurvePoint, probed []float64) string {
	var gaps []string
	for i := 0; i+1 < len(curve); i++ {
		for _, s := range missingBetween(curve[i].Scale, curve[i+1].Scale, probed) {
			if slices.Contains(probed, 2*s) || slices.Contains(probed, s/2) {
				gaps = append(gaps, formatValue(s))
			}
		}
	}
	if len(gaps) == 0 {
		return ""
	}
	return "no knee judged across the load curve's missing scale " + strings.Join(gaps, ", ")
}

// missingBetween returns the probed scales strictly between lo and hi.
func missingBetween(lo, hi float64, probed []float64) []float64 {
	var out []float64
	for _, s := range probed {
		if s > lo && s < hi {
			out = append(out, s)
		}
	}
	return out
}

// growth is b's relative growth over a; NaN (no jump) when either is
// unknown (a point with no sample), else +Inf from zero to a positive b.
func growth(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	if !(a > 0) {
		if b > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return b/a - 1
}

// Saturation returns the index of the curve point with the highest output
// throughput (the lowest scale among equals), or -1 for an empty curve.
// Because a trace is finite, output tok/s over the makespan rises with
// load until the device is always busy and then stays flat: that plateau
// is raw saturation, and its cost per token is the cheapest the config
// can serve at, with no regard for latency.
func Saturation(curve []CurvePoint) int {
	best := -1
	for i, p := range curve {
		if best < 0 || p.OutTokPerSec > curve[best].OutTokPerSec {
			best = i
		}
	}
	return best
}
