package calibrate

import (
	"math"
	"testing"

	"github.com/servesim/servesim/sim"
)

// Steps timed by the simulator's model are fitted back to it: the fitted
// profile, as the simulator evaluates it, gives each step its time.
func TestFitRecoversTheSimulatorsStepTimes(t *testing.T) {
	truth := sim.Linear{Ca: 2e-10, Ck: 3e-8, Cq: 1e-4, Dense: sim.TokenCurve{
		Tokens:  []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048},
		Seconds: []float64{0.010, 0.0102, 0.0104, 0.0105, 0.011, 0.012, 0.014, 0.016, 0.02, 0.03, 0.05, 0.09}}}
	var obs []Observation
	for _, n := range []float64{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 100, 128, 200, 256, 400, 512, 700, 1024, 1500, 2048, 3000} {
		for _, ctx := range []float64{100, 900} {
			for _, after := range []float64{0, 1} {
				pre := math.Max(0, n-4)
				b := sim.Batch{PrefillTokens: pre, PrefillAttn: pre * ctx, DecodeSeqs: n - pre, DecodeContext: (n - pre) * (ctx + 7), AfterPrefill: after}
				obs = append(obs, Observation{PrefillTokens: b.PrefillTokens, PrefillAttn: b.PrefillAttn, DecodeSeqs: b.DecodeSeqs,
					DecodeContext: b.DecodeContext, AfterPrefill: b.AfterPrefill, Seconds: truth.StepSeconds(b)})
			}
		}
	}
	var s FitSettings
	s.Curve = true
	for _, tm := range []Term{TermPrefillResident, TermDecodeResident, TermResident} {
		s.Off[tm] = true
	}
	f, err := FitSteps(obs, &s)
	if err != nil {
		t.Fatal(err)
	}
	pred := f.Step.Predict(nil, obs)
	for i, o := range obs {
		if math.Abs(pred[i]-o.Seconds) > 1e-6*o.Seconds {
			t.Errorf("step of %g tokens: fitted %.9g s, simulator %.9g s", o.PrefillTokens+o.DecodeSeqs, pred[i], o.Seconds)
		}
	}
	t.Logf("R² %v, notes %v, 2048: %v, 4096: %v", f.Quality.R2, f.Notes, f.Step.Dense[11], f.Step.Dense[12])
}
