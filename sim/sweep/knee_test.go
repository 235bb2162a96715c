package sweep

import (
	"math"
	"testing"
)

func TestKnee(t *testing.T) {
	pt := func(s, tput, ttft, e2e float64) CurvePoint {
		return CurvePoint{Scale: s, OutTokPerSec: tput, TTFTP99: ttft, E2EP99: e2e}
	}
	for _, tc := range []struct {
		name  string
		curve []CurvePoint
		want  float64
	}{
		{"flat and slower", []CurvePoint{pt(1, 100, 1, 10), pt(2, 190, 1.2, 11), pt(4, 195, 5, 20), pt(8, 196, 50, 100)}, 2},
		{"still growing", []CurvePoint{pt(1, 100, 1, 10), pt(2, 200, 3, 30), pt(4, 400, 9, 90)}, math.NaN()},
		{"flat but latency steady", []CurvePoint{pt(1, 100, 1, 10), pt(2, 101, 1.1, 10.5)}, math.NaN()},
		{"e2e grows", []CurvePoint{pt(1, 100, 1, 10), pt(2, 102, 1.1, 30)}, 1},
		{"empty", nil, math.NaN()},
	} {
		got := Knee(tc.curve, 5, 50)
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s: knee %v, want %v", tc.name, got, tc.want)
		}
	}
	if i := Saturation([]CurvePoint{pt(1, 100, 0, 0), pt(2, 300, 0, 0), pt(4, 300, 0, 0), pt(8, 290, 0, 0)}); i != 1 {
		t.Errorf("saturation at %d, want 1 (the first of the highest)", i)
	}
	if Saturation(nil) != -1 {
		t.Error("saturation of nothing")
	}
}

// A load-curve point whose runs gave no TTFT sample has a NaN P99: its
// growth to the next point is unknown, no jump, so it makes no knee (it
// once counted as an infinite growth and set a false knee).
func TestKneeSkipsUnknownP99(t *testing.T) {
	curve := []CurvePoint{
		{Scale: 1, OutTokPerSec: 100, TTFTP99: math.NaN(), E2EP99: 10},
		{Scale: 2, OutTokPerSec: 101, TTFTP99: 1, E2EP99: 10.5},
	}
	if got := Knee(curve, 5, 50); !math.IsNaN(got) {
		t.Errorf("knee %v from a point with no TTFT sample, want none (NaN)", got)
	}
	curve[0].TTFTP99, curve[0].E2EP99 = 1, math.NaN()
	if got := Knee(curve, 5, 50); !math.IsNaN(got) {
		t.Errorf("knee %v from a point with no E2E sample, want none (NaN)", got)
	}
}

// A load-curve point left off (a failed run, out of KV memory) leaves a
// gap: the points either side are no consecutive step of the curve, and a
// quadrupled load judged by the doubled step's thresholds set a knee that
// no probed step showed.
func TestKneeNotJudgedAcrossGap(t *testing.T) {
	pt := func(s, tput, ttft float64) CurvePoint {
		return CurvePoint{Scale: s, OutTokPerSec: tput, TTFTP99: ttft, E2EP99: 1}
	}
	probed := []float64{1, 2, 4, 8}
	gapped := []CurvePoint{pt(1, 100, 1), pt(4, 104, 5), pt(8, 300, 6)}
	if got := Knee(gapped, 5, 50); !math.IsNaN(got) {
		t.Errorf("knee %v across the missing scale 2, want none (NaN)", got)
	}
	after := []CurvePoint{pt(1, 100, 1), pt(4, 104, 5), pt(8, 105, 9)}
	if got := Knee(after, 5, 50); got != 4 {
		t.Errorf("knee %v, want 4 (the step past the gap)", got)
	}
	whole := []CurvePoint{pt(1, 100, 1), pt(2, 102, 5), pt(4, 300, 6)}
	if got := Knee(whole, 5, 50); got != 1 {
		t.Errorf("knee %v on a curve with no gap, want 1", got)
	}
	if got := kneeGapNote(gapped, probed); got != "no knee judged across the load curve's missing scale 2" {
		t.Errorf("gap note %q", got)
	}
	if got := kneeGapNote(whole, probed[:3]); got != "" {
		t.Errorf("gap note %q on a curve with no gap, want none", got)
	}
	if got := kneeGapNote(gapped[:1], probed); got != "" {
		t.Errorf("gap note %q for points missing above the curve, want none (no pair spans them)", got)
	}
}

// The capacity joins the load curve between two doubling-grid scales, a
// shorter step than the doubling the thresholds are for: a short step
// gains little throughput and little P99 alike, so judged on its own it
// moved the knee onto the capacity, or found one no doubling shows.
func TestKneeJudgesDoublingsOnly(t *testing.T) {
	pt := func(s, tput, ttft float64) CurvePoint {
		return CurvePoint{Scale: s, OutTokPerSec: tput, TTFTP99: ttft, E2EP99: 1}
	}
	moved := []CurvePoint{pt(4, 100, 1), pt(4.2, 101, 1.2), pt(8, 103, 2), pt(16, 104, 2.5)}
	if got := Knee(moved, 5, 50); got != 4 {
		t.Errorf("knee %v, want 4 (4 → 8 gains 3%% while P99 doubles)", got)
	}
	invented := []CurvePoint{pt(4, 100, 1), pt(6, 103, 1.6), pt(8, 150, 1.7), pt(16, 160, 2)}
	if got := Knee(invented, 5, 50); !math.IsNaN(got) {
		t.Errorf("knee %v from the step 4 → 6 alone, want none (no doubling shows one)", got)
	}
	if got := kneeGapNote([]CurvePoint{pt(4, 100, 1), pt(8, 103, 2)}, []float64{4, 6.3, 8}); got != "" {
		t.Errorf("gap note %q for the capacity left off, want none (it is judged in no pair)", got)
	}
}
