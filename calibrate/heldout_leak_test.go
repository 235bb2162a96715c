package calibrate

import (
	"fmt"
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A dense knot whose hat is collinear with a neighbour's (every step in
// its span has the same token count, between two knots) is reported
// unexcited and fitted as a curve value of 0 there; but the profile's
// curve (Curve, Predict, the simulator) leaves it out and interpolates
// across it, so the model the fit optimised is not the model it returns.
func TestFitQualityIsThatOfTheReturnedCurve(t *testing.T) {
	cost := func(n float64) float64 { return 4e-3 + 6e-5*n }
	var obs []Observation
	for i := range 60 {
		var o Observation
		switch i % 4 {
		case 0:
			o.DecodeSeqs = 1
		case 1:
			o.DecodeSeqs = 3 // between knots 2 and 4
		case 2:
			o.PrefillTokens = 100 // between knots 64 and 128
		case 3:
			o.PrefillTokens = 16
		}
		n := o.PrefillTokens + o.DecodeSeqs
		o.Seconds = cost(n) * (1 + 0.001*math.Sin(float64(i)))
		obs = append(obs, o)
	}
	f, err := FitSteps(obs, &FitSettings{Curve: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("notes: %q", f.Notes)
	pred := f.Step.Predict(nil, obs)
	y := make([]float64, len(obs))
	for i, o := range obs {
		y[i] = o.Seconds
	}
	q := quality(y, pred)
	t.Logf("fit's quality: R² %.4f MdAPE %.4f; its profile's predictions: R² %.4f MdAPE %.4f",
		f.Quality.R2, f.Quality.MdAPE, q.R2, q.MdAPE)
	if math.Abs(q.R2-f.Quality.R2) > 1e-9 || math.Abs(q.MdAPE-f.Quality.MdAPE) > 1e-9 {
		t.Errorf("FitSteps reports R² %.4f MdAPE %.4f; the coefficients it returns give R² %.4f MdAPE %.4f",
			f.Quality.R2, f.Quality.MdAPE, q.R2, q.MdAPE)
	}
	for _, n := range []float64{1, 3, 16, 100} {
		got := f.Step.Curve().At(n)
		if math.Abs(got-cost(n))/cost(n) > 0.01 {
			t.Logf("open: profile's dense curve at %g tokens = %.4g s, fitted data say %.4g s", n, got, cost(n))
		}
	}
}

// serialRunStep is serialRun with a decode step of stepNs.
func serialRunStep(kind string, prompts []int, out int, t0 int64, stepNs float64) (*RunResult, int64) {
	spec := RunSpec{Name: fmt.Sprintf("%s-%d", kind, t0), Kind: kind, Concurrency: 1, Outputs: []int{out},
		Requests: len(prompts), Repeat: 1}
	jitter := func(i int) float64 { return 1 + 0.01*math.Sin(float64(i)*1.7) }
	t, k := t0, 0
	var rows []*traces.Request
	for i, p := range prompts {
		r := &traces.Request{}
		r.Reset()
		r.ID = fmt.Sprintf("%s/%d", spec.Name, i)
		r.PromptTokens, r.OutputTokens, r.UsagePrompt, r.UsageOutput = int32(p), int32(out), int32(p), int32(out)
		send := t0
		if i > 0 {
			send = rows[i-1].LastToken + 1e6
		}
		r.Arrival, r.ScheduledSend, r.ActualSend = send, send, send
		t = max(t, send)
		for j := range out {
			step := stepNs * jitter(k)
			if j == 0 {
				step = (2e6 + 1e5*float64(p)) * jitter(k)
			}
			k++
			t += int64(step)
			r.TokenTimes = append(r.TokenTimes, t)
		}
		r.FirstToken, r.LastToken, r.HTTPStatus, r.FinishReason = r.TokenTimes[0], t, 200, "length"
		rows = append(rows, r)
	}
	res := &RunResult{Spec: spec, Rows: rows}
	res.Summary = Summarize(rows)
	return res, t + 50e6
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
			r, t0 = serialRunStep(kind, prompts, 24, t0, step)
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
