package calibrate

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// One stalled step must be trimmed, not the steady steps of its width: a
// step far slower than the fit is missed by more than 100% as much as one
// far faster.
func TestTrimDropsAStallNotItsWidth(t *testing.T) {
	cost := func(o Observation) float64 { return 4e-3 + 2e-4*(o.DecodeSeqs+o.PrefillTokens) }
	var obs []Observation
	for i := range 80 {
		o := Observation{DecodeSeqs: float64(1 + i%4)}
		if i%5 == 0 {
			o = Observation{PrefillTokens: float64(int(32) << (i % 3))}
		}
		o.Seconds = cost(o) * (1 + 0.01*math.Sin(float64(i)))
		if i == 7 { // four sequences
			o.Seconds = 1 // a stall
		}
		obs = append(obs, o)
	}
	w := make([]float64, len(obs)) // absolute error, as Analyze weighs single steps
	for i := range w {
		w[i] = 1
	}
	f, kept, err := fitTrimmed(obs, &FitSettings{Curve: true, Weights: w}, true)
	if err != nil {
		t.Fatal(err)
	}
	if stall := slices.Contains(kept, 7); len(kept) != len(obs)-1 || stall {
		t.Errorf("kept %d of %d observations (the stall among them: %v), want all but the stall", len(kept), len(obs), stall)
	}
	four := Observation{DecodeSeqs: 4}
	if got := f.Step.StepSeconds(four); math.Abs(got-cost(four)) > 0.05*cost(four) {
		t.Errorf("four sequences: predicted %.3f ms, want %.3f ms within 5%%", got*1e3, cost(four)*1e3)
	}
}

// Steps in two clusters far apart leave a fit that misses every one by
// more than the trim allows: the error says that the trim removed them,
// how many and by what rule, not only that the fit had no observations.
func TestTrimThatDropsEveryObservationSaysSo(t *testing.T) {
	var obs []Observation
	for i := range 10 {
		o := Observation{DecodeSeqs: 1, Seconds: 0.01}
		if i == 0 {
			o.Seconds = 1
		}
		obs = append(obs, o)
	}
	_, _, err := fitTrimmed(obs, &FitSettings{}, true)
	want := "trim removed all 10 observations: each missed the fit by more than 100% of the smaller of its observed and predicted time (--no-trim keeps them)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
}
