package calibrate

import "testing"

// A run that yields no step leaves a gap in the run numbers (Analyze and
// RecoverRuns number the runs, not the runs with steps): runs 0 and 2
// left are still two runs to hold out one at a time, not one fold
// holding out everything and fitting nothing.
func TestCrossCheckRunNumbersWithGaps(t *testing.T) {
	obs := synthObs(400, trueCoef, 0.02, 11)
	for i := range obs {
		obs[i].Run = 2 * (i % 2) // runs 0 and 2
	}
	h, err := CrossCheck(obs, 2, nil)
	if err != nil {
		t.Fatalf("runs 0 and 2, 2 folds: %v", err)
	}
	if !h.ByRun || h.Folds != 2 || h.NHeld != len(obs) {
		t.Errorf("runs 0 and 2, 2 folds: by run %v, %d folds, %d held out; want by run, 2 folds, all %d held out", h.ByRun, h.Folds, h.NHeld, len(obs))
	}
	fit, held, byRun, err := SplitHeldOut(nil, nil, obs, 2)
	if err != nil || !byRun || len(fit) == 0 || len(held) == 0 {
		t.Errorf("SplitHeldOut of runs 0 and 2 in 2 folds: %d fitted, %d held, by run %v, err %v; want both parts non-empty", len(fit), len(held), byRun, err)
	}
}
