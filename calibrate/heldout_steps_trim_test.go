package calibrate

import (
	"math"
	"testing"
)

// The single-step held-out check trims each fold's training part as the
// main check does: a stall in a training run must not pull its folds'
// fits off every other step.
func TestHeldOutStepsTrimsAStall(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	var runs []*RunResult
	t0 := int64(0)
	for i, kind := range []string{KindPrefill, KindDecode, KindDecode, KindDecode} {
		var r *RunResult
		r, t0 = serialRun(kind, 1, prompts, 24, t0)
		if i == 1 {
			// The last request of the run stalls 300 ms before its 12th
			// token: one decode step that looks 60× too slow.
			rr := r.Rows[len(r.Rows)-1]
			for k := 11; k < len(rr.TokenTimes); k++ {
				rr.TokenTimes[k] += 300e6
			}
			rr.LastToken = rr.TokenTimes[len(rr.TokenTimes)-1]
			r.Summary = Summarize(r.Rows)
			t0 += 300e6
		}
		runs = append(runs, r)
	}
	a, err := Analyze(runs, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := a.HeldOutSteps
	if hs == nil {
		t.Fatal("no single-step held-out check")
	}
	t.Logf("held out: %.2f%%; single steps: %.2f%% over %d", 100*a.HeldOut.MdAPE, 100*hs.MdAPE, hs.NHeld)
	if hs.MdAPE > 0.03 {
		t.Errorf("single-step held-out MdAPE %.1f%%, want ≤ 3%% (steps jitter 1%%; the stall trimmed from the fits)", 100*hs.MdAPE)
	}
	if d := hs.Fit.Step.Curve().At(1); math.Abs(d-5e-3) > 0.05*5e-3 {
		t.Errorf("last fold's single-step fit: one-token step %.4g s, want 5 ms within 5%%", d)
	}
}
