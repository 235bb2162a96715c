package calibrate

import (
	"fmt"
	"math"
)

// HeldOut is the result of CrossCheck.
type HeldOut struct {
	K     int     // every K-th run (or observation) was held out
	ByRun bool    // split on Observation.Run (false: on observation index)
	NFit  int     // observations fitted
	NHeld int     // observations held out
	MdAPE float64 // median |predicted − observed|/observed on the held-out part, fraction
	MAPE  float64 // mean of the same
	Fit   *Fit    // the fit on the fit part
}

// SplitHeldOut splits obs deterministically into a fit part and a
// held-out part, appending to fitDst and heldDst. When obs come from two
// or more runs (distinct Observation.Run), whole runs are held out: those
// whose Run % k == k−1. Otherwise every k-th observation (index % k ==
// k−1) is held out. k must be >= 2.
func SplitHeldOut(fitDst, heldDst, obs []Observation, k int) (fit, held []Observation, byRun bool, err error) {
	if k < 2 {
		return fitDst, heldDst, false, fmt.Errorf("calibrate: held-out split: k = %d, must be >= 2", k)
	}
	runs := map[int]bool{}
	for _, o := range obs {
		runs[o.Run] = true
	}
	byRun = len(runs) >= 2
	for i, o := range obs {
		key := i
		if byRun {
			key = o.Run
		}
		if ((key%k)+k)%k == k-1 {
			heldDst = append(heldDst, o)
		} else {
			fitDst = append(fitDst, o)
		}
	}
	return fitDst, heldDst, byRun, nil
}

// CrossCheck splits obs with SplitHeldOut, fits the fit part with
// FitSteps and reports the error of that fit on the held-out part. With
// weights in settings, they must be given per observation of obs; they are
// split along.
func CrossCheck(obs []Observation, k int, settings *FitSettings) (*HeldOut, error) {
	fitPart, held, byRun, err := SplitHeldOut(nil, nil, obs, k)
	if err != nil {
		return nil, err
	}
	if len(held) == 0 {
		return nil, fmt.Errorf("calibrate: held-out check: nothing held out (k = %d, %d observations)", k, len(obs))
	}
	var s FitSettings
	if settings != nil {
		s = *settings
	}
	if s.Weights != nil {
		if len(s.Weights) != len(obs) {
			return nil, fmt.Errorf("calibrate: held-out check: %d weights for %d observations", len(s.Weights), len(obs))
		}
		wObs := make([]Observation, len(obs))
		for i, o := range obs {
			o.Seconds = s.Weights[i] // carry the weight through the split
			wObs[i] = o
		}
		wFit, _, _, _ := SplitHeldOut(nil, nil, wObs, k)
		s.Weights = make([]float64, len(wFit))
		for i, o := range wFit {
			s.Weights[i] = o.Seconds
		}
	}
	f, err := FitSteps(fitPart, &s)
	if err != nil {
		return nil, fmt.Errorf("calibrate: held-out check: %w", err)
	}
	pred := f.Step.Predict(nil, held)
	ape := make([]float64, 0, len(held))
	var sum float64
	for i, o := range held {
		if o.Seconds > 0 {
			e := math.Abs(pred[i]-o.Seconds) / o.Seconds
			ape = append(ape, e)
			sum += e
		}
	}
	if len(ape) == 0 {
		return nil, fmt.Errorf("calibrate: held-out check: no held-out observation has a positive duration")
	}
	h := &HeldOut{K: k, ByRun: byRun, NFit: len(fitPart), NHeld: len(held), MAPE: sum / float64(len(ape)), Fit: f}
	h.MdAPE = median(ape)
	md := h.MdAPE
	f.Quality.HeldOutMdAPE = &md
	f.Quality.NHeldOut = len(held)
	return h, nil
}
