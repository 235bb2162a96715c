package calibrate

import (
	"strings"
	"testing"
	"time"
)

// More folds than runs is leave-one-run-out: a fold count far past the
// runs (--held-out 1000000000) gives the same check at once, instead of
// splitting the observations once per empty fold for hours.
func TestCrossCheckFoldsPastTheRuns(t *testing.T) {
	obs := synthObs(700, trueCoef, 0.02, 5) // runs 0..6
	want, err := CrossCheck(obs, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *HeldOut, 1)
	go func() {
		h, err := CrossCheck(obs, 1_000_000_000, nil)
		if err != nil {
			t.Error(err)
		}
		done <- h
	}()
	select {
	case h := <-done:
		if h != nil && (h.NHeld != want.NHeld || h.MdAPE != want.MdAPE || h.NFit != want.NFit) {
			t.Errorf("10⁹ folds over 7 runs: %+v, want leave-one-run-out %+v", h, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("CrossCheck with 10⁹ folds over 7 runs still running after 10 s")
	}
}

// One run's folds are of observations, so a fold count past a hundred
// fits the model once per fold, up to once per observation: it is
// refused, naming k, the observations and the limit, before any fit. The
// limit is on folds fitted, not on k: a run of a hundred observations or
// fewer takes any k, as one fold per observation.
func TestCrossCheckRefusesObservationFoldsPastTheLimit(t *testing.T) {
	obs := synthObs(700, trueCoef, 0.02, 5)
	for i := range obs {
		obs[i].Run = 0 // one run
	}
	_, err := CrossCheck(obs, 1_000_000_000, nil)
	want := "calibrate: held-out check: k = 1000000000 folds of the 700 observations of one run would fit the model 700 times: want at most 100 folds: k ≤ 100, or at most 100 observations (with two runs or more, folds are whole runs)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
	if _, err := CrossCheck(obs, 10, nil); err != nil {
		t.Errorf("10 folds of one run: %v", err)
	}
	if _, err := CrossCheck(obs[:100], 1_000_000_000, nil); err != nil {
		t.Errorf("10⁹ folds of one run of 100 observations: %v", err)
	}
}
