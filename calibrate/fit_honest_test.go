package calibrate

import (
	"math"
	"testing"
)

// A dense knot whose hat is collinear with a neighbour's (every step in
// its span has the same token count, between two knots) is reported
// unexcited and fitted as a curve value of 0 there; but the profile's
// curve (Curve, Predict, the simulator) leaves it out and interpolates
// across it. The quality FitSteps reports must be that of the curve it
// returns, not of the model it optimised.
func TestFitQualityIsThatOfTheReturnedCurve(t *testing.T) {
	cost := func(n float64) float64 { return 4e-3 + 6e-5*n }
	obs := betweenKnotsObs(cost, 0.001)
	f, err := FitSteps(obs, &FitSettings{Curve: true})
	if err != nil {
		t.Fatal(err)
	}
	pred := f.Step.Predict(nil, obs)
	y := make([]float64, len(obs))
	for i, o := range obs {
		y[i] = o.Seconds
	}
	q := quality(y, pred)
	if math.Abs(q.R2-f.Quality.R2) > 1e-9 || math.Abs(q.MdAPE-f.Quality.MdAPE) > 1e-9 {
		t.Errorf("FitSteps reports R² %.4f MdAPE %.4f; the coefficients it returns give R² %.4f MdAPE %.4f",
			f.Quality.R2, f.Quality.MdAPE, q.R2, q.MdAPE)
	}
}

// The held-out check must not let a held-out run decide what its fold is
// fitted to: changing only the run held out in the last fold (run 3 of 4,
// Run % 4 == 3) must leave that fold's fit (HeldOut.Fit) unchanged.
// Analyze trims outliers by a fit to all runs before CrossCheck, so the
// held-out run decides which observations of the other runs are dropped
// from its fold's training data, and which of its own are never predicted.
func TestHeldOutRunDoesNotShapeItsFold(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	analyze := func(slow float64) *Analysis {
		var runs []*RunResult
		t0 := int64(0)
		for i, kind := range []string{KindPrefill, KindDecode, KindDecode, KindDecode} {
			step := 5e6
			if i == 3 {
				step *= slow
			}
			var r *RunResult
			r, t0 = serialRunStep(kind, 1, prompts, 24, t0, step)
			runs = append(runs, r)
		}
		a, err := Analyze(runs, AnalyzeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	base, pert := analyze(1), analyze(4)
	t.Logf("held-out: base n=%d MdAPE %.4f MAPE %.4f; run 3 slower: n=%d MdAPE %.4f MAPE %.4f, %d trimmed",
		base.HeldOut.NHeld, base.HeldOut.MdAPE, base.HeldOut.MAPE, pert.HeldOut.NHeld, pert.HeldOut.MdAPE, pert.HeldOut.MAPE, len(pert.Trimmed))
	if base.HeldOut.NFit != pert.HeldOut.NFit {
		t.Errorf("last fold fitted %d observations, %d after changing only the held-out run", base.HeldOut.NFit, pert.HeldOut.NFit)
	}
	b, p := base.HeldOut.Fit.Step.Curve(), pert.HeldOut.Fit.Step.Curve()
	for _, n := range []float64{1, 32, 256} {
		if math.Abs(b.At(n)-p.At(n)) > 1e-9 {
			t.Errorf("last fold's dense curve at %g tokens: %.5g s, %.5g s after changing only the held-out run", n, b.At(n), p.At(n))
		}
	}
	if n := len(pert.Observations) + len(pert.Trimmed); pert.HeldOut.NHeld != n {
		t.Errorf("held-out check predicted %d of %d observations", pert.HeldOut.NHeld, n)
	}
}
