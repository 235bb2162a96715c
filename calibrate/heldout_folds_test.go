package calibrate

import (
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
