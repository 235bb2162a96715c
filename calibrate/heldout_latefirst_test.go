package calibrate

import (
	"math"
	"testing"
)

// Which steps are late first tokens is decided by the fastest single-request
// prefill seen: in the held-out check by the training runs' alone, so a
// held-out run with faster prefills does not change what its fold fits.
func TestHeldOutRunDoesNotDecideLateFirsts(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	analyze := func(heldOutPrefill float64) *Analysis {
		var runs []*RunResult
		t0 := int64(0)
		for i, kind := range []string{KindPrefill, KindDecode, KindMixed, KindPrefill} {
			clients := 1
			if i == 2 {
				clients = 2 // prompts that join a busy engine
			}
			var r *RunResult
			r, t0 = serialRun(kind, clients, prompts, 24, t0)
			if i == 2 {
				// The second client's first prompt arrives 0.3× a prompt's
				// step after the step before: a first token delivered late.
				rr := r.Rows[1]
				step := rr.TokenTimes[0] - r.Rows[0].LastToken
				shift := step - int64(0.3*float64(step))
				for k := range rr.TokenTimes {
					rr.TokenTimes[k] -= shift
				}
				rr.FirstToken, rr.LastToken = rr.TokenTimes[0], rr.TokenTimes[len(rr.TokenTimes)-1]
			}
			if i == 3 {
				// Run 3, held out in the last fold: prompts prefilled faster.
				for _, rr := range r.Rows {
					first := rr.TokenTimes[0] - rr.ActualSend
					shift := first - int64(heldOutPrefill*float64(first))
					for k := range rr.TokenTimes {
						rr.TokenTimes[k] -= shift
					}
					rr.FirstToken, rr.LastToken = rr.TokenTimes[0], rr.TokenTimes[len(rr.TokenTimes)-1]
				}
			}
			runs = append(runs, r)
		}
		a, err := Analyze(runs, AnalyzeOptions{NoTrim: true})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	base, fast := analyze(1), analyze(0.4)
	t.Logf("late firsts dropped: %d, with a faster held-out run %d", base.DroppedLateFirst, fast.DroppedLateFirst)
	if base.HeldOut.NFit != fast.HeldOut.NFit {
		t.Errorf("last fold fitted %d observations, %d after changing only the held-out run", base.HeldOut.NFit, fast.HeldOut.NFit)
	}
	b, f := base.HeldOut.Fit.Step.Curve(), fast.HeldOut.Fit.Step.Curve()
	for _, n := range []float64{1, 32, 256} {
		if math.Abs(b.At(n)-f.At(n)) > 1e-9 {
			t.Errorf("last fold's dense curve at %g tokens: %.5g s, %.5g s after changing only the held-out run", n, b.At(n), f.At(n))
		}
	}
}
