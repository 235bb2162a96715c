package calibrate

import (
	"math"
	"testing"
)

// A dense point whose hat is a combination of the others' (steps at 3
// tokens only, between the points at 2 and 4) is left out of the curve,
// which then interpolates across it: the fit must be to that curve, so
// that a linear cost is recovered at every width that was measured.
func TestFitStepsCurveBetweenKnots(t *testing.T) {
	cost := func(n float64) float64 { return 4e-3 + 6e-5*n }
	f, err := FitSteps(betweenKnotsObs(cost, 0.01), &FitSettings{Curve: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []float64{1, 3, 16, 100} {
		if got := f.Step.StepSeconds(Observation{DecodeSeqs: n}); math.Abs(got-cost(n)) > 0.05*cost(n) {
			t.Errorf("%g tokens: predicted %.3f ms, want %.3f ms within 5%%", n, got*1e3, cost(n)*1e3)
		}
	}
	if f.Quality.R2 < 0.9 {
		t.Errorf("R² %.3f, want ≥ 0.9 for a linear cost at four widths", f.Quality.R2)
	}
}

// A curve point switched off (--without dense@4) is left out of the curve
// too: the fit is to the curve through the others.
func TestFitStepsCurveWithoutAPoint(t *testing.T) {
	cost := func(n float64) float64 { return 4e-3 + 6e-5*n }
	widths := []float64{1, 2, 3, 5, 8, 16}
	var obs []Observation
	for i := range 60 {
		o := Observation{DecodeSeqs: widths[i%len(widths)]}
		o.Seconds = cost(o.DecodeSeqs) * (1 + 0.01*math.Sin(float64(i)))
		obs = append(obs, o)
	}
	fs := FitSettings{Curve: true}
	fs.Off[TermDense0+2] = true // dense@4
	f, err := FitSteps(obs, &fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range widths {
		if got := f.Step.StepSeconds(Observation{DecodeSeqs: n}); math.Abs(got-cost(n)) > 0.05*cost(n) {
			t.Errorf("%g tokens: predicted %.3f ms, want %.3f ms within 5%%", n, got*1e3, cost(n)*1e3)
		}
	}
}

// betweenKnotsObs returns 60 steps of a cost at four widths, two of them
// between dense knots (3 decode tokens between the knots at 2 and 4; 100
// prefill tokens between 64 and 128), each off by up to noise (a
// fraction) so that the fit is not exact.
func betweenKnotsObs(cost func(tokens float64) float64, noise float64) []Observation {
	var obs []Observation
	for i := range 60 {
		var o Observation
		switch i % 4 {
		case 0:
			o.DecodeSeqs = 1
		case 1:
			o.DecodeSeqs = 3
		case 2:
			o.PrefillTokens = 100
		case 3:
			o.PrefillTokens = 16
		}
		o.Seconds = cost(o.PrefillTokens+o.DecodeSeqs) * (1 + noise*math.Sin(float64(i)))
		obs = append(obs, o)
	}
	return obs
}
