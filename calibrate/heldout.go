package calibrate

import (
	"fmt"
	"math"
	"slices"
)

// HeldOut is the result of CrossCheck.
type HeldOut struct {
	K     int     // folds: the r-th distinct run, ascending (or observation r), is in fold r % K
	Folds int     // folds that held something out and were fitted: fewer than K with fewer runs
	ByRun bool    // split on Observation.Run (false: on observation index)
	NFit  int     // observations fitted for the last fold
	NHeld int     // held-out predictions the errors are over: the held-out observations with a positive duration, less late first tokens where Analyze leaves them out
	MdAPE float64 // median |predicted − observed|/observed over the held-out predictions, fraction
	MAPE  float64 // mean of the same
	Fit   *Fit    // the last fold's fit
}

// SplitHeldOut splits obs deterministically into a fit part and a
// held-out part, appending to fitDst and heldDst. When obs come from two
// or more runs (distinct Observation.Run), whole runs are held out: the
// r-th run in ascending order of Run (from 0) where r % k == k−1, so that
// runs numbered with gaps (a run that yielded no step) still fill the
// folds in turn. Otherwise every k-th observation (index % k == k−1) is
// held out. k must be >= 2.
func SplitHeldOut(fitDst, heldDst, obs []Observation, k int) (fit, held []Observation, byRun bool, err error) {
	return splitFold(fitDst, heldDst, obs, k, k-1)
}

// splitFold is SplitHeldOut holding out fold j: runs (or observations)
// whose key % k == j.
func splitFold(fitDst, heldDst, obs []Observation, k, j int) (fit, held []Observation, byRun bool, err error) {
	if k < 2 {
		return fitDst, heldDst, false, fmt.Errorf("calibrate: held-out split: k = %d, must be >= 2", k)
	}
	keys, byRun := foldKeys(obs)
	for i, o := range obs {
		if keys[i]%k == j {
			heldDst = append(heldDst, o)
		} else {
			fitDst = append(fitDst, o)
		}
	}
	return fitDst, heldDst, byRun, nil
}

// CrossCheck measures the error of the fit on data it did not see, by
// k-fold cross-validation over whole runs (or observations, for one run;
// see SplitHeldOut): each fold is predicted by FitSteps on the other k−1,
// and the errors of all predictions are summarised, so every run counts
// once as unseen data and no single split decides the figure. With
// weights in settings, they must be given per observation of obs; they
// are split along. Folds of one run's observations are at most
// MaxObservationFolds (k past it is an error unless the run has no more
// observations than that, one fold each).
func CrossCheck(obs []Observation, k int, settings *FitSettings) (*HeldOut, error) {
	return crossCheck(obs, k, settings, false, false)
}

// MaxObservationFolds is the most folds a held-out check splits one run's
// observations into: each fold is a fit to all the others, and past this
// the check nears leave-one-observation-out, one fit per observation,
// whose neighbouring steps in the fit say little of unseen data anyway.
// Folds of whole runs are at most one per run, so need no limit.
const MaxObservationFolds = 100

// crossCheck is CrossCheck; with trim each fold is fitted as Analyze fits
// (fitTrimmed: trimmed by fits to that fold's training part only), and
// every held-out observation is predicted. With late, late first tokens
// (see lateFirsts) are left out of both parts, by the fastest prefill
// rate of the training part alone.
func crossCheck(obs []Observation, k int, settings *FitSettings, trim, late bool) (*HeldOut, error) {
	var s FitSettings
	if settings != nil {
		s = *settings
	}
	if s.Weights != nil && len(s.Weights) != len(obs) {
		return nil, fmt.Errorf("calibrate: held-out check: %d weights for %d observations", len(s.Weights), len(obs))
	}
	// Carry each weight through the split in Seconds of a copy.
	var wObs []Observation
	if s.Weights != nil {
		wObs = make([]Observation, len(obs))
		for i, o := range obs {
			o.Seconds = s.Weights[i]
			wObs[i] = o
		}
	}
	folds := occupiedFolds(obs, k)
	if _, byRun := foldKeys(obs); !byRun && len(folds) > MaxObservationFolds {
		return nil, fmt.Errorf("calibrate: held-out check: k = %d folds of the %d observations of one run would fit the model %d times: want at most %d folds: k ≤ %[4]d, or at most %[4]d observations (with two runs or more, folds are whole runs)",
			k, len(obs), len(folds), MaxObservationFolds)
	}
	h := &HeldOut{K: k}
	var ape []float64
	var sum float64
	for _, j := range folds {
		fitPart, held, byRun, err := splitFold(nil, nil, obs, k, j)
		if err != nil {
			return nil, err
		}
		fs := s
		if wObs != nil {
			wFit, _, _, _ := splitFold(nil, nil, wObs, k, j)
			fs.Weights = make([]float64, len(wFit))
			for i, o := range wFit {
				fs.Weights[i] = o.Seconds
			}
		}
		if late {
			rate := lateFirstRate(fitPart)
			drop := lateFirsts(fitPart, rate)
			fitPart, fs.Weights = keep(fitPart, drop), keep(fs.Weights, drop)
			held = keep(held, lateFirsts(held, rate))
		}
		f, kept, err := fitTrimmed(fitPart, &fs, trim)
		if err != nil {
			return nil, fmt.Errorf("calibrate: held-out check, fold %d of %d: %w", j+1, k, err)
		}
		for i, p := range f.Step.Predict(nil, held) {
			if o := held[i]; o.Seconds > 0 {
				e := math.Abs(p-o.Seconds) / o.Seconds
				ape = append(ape, e)
				sum += e
			}
		}
		h.ByRun, h.NFit, h.Fit = byRun, len(kept), f
		h.Folds++
	}
	if len(ape) == 0 {
		return nil, fmt.Errorf("calibrate: held-out check: no held-out observation with a positive duration (k = %d, %d observations)", k, len(obs))
	}
	h.NHeld, h.MAPE, h.MdAPE = len(ape), sum/float64(len(ape)), median(ape)
	md := h.MdAPE
	h.Fit.Quality.HeldOutMdAPE = &md
	h.Fit.Quality.NHeldOut = h.NHeld
	return h, nil
}

// occupiedFolds returns, ascending, the folds of splitFold that hold
// something out: with fewer runs than folds the others are empty, and
// visiting each of k (a fold count of 10⁹ is accepted) would take hours.
func occupiedFolds(obs []Observation, k int) []int {
	if k < 2 {
		return []int{0} // splitFold refuses it
	}
	keys, _ := foldKeys(obs)
	seen := map[int]bool{}
	var out []int
	for _, key := range keys {
		if j := key % k; !seen[j] {
			seen[j] = true
			out = append(out, j)
		}
	}
	slices.Sort(out)
	return out
}

// foldKeys returns the key of each observation that decides its fold:
// its run's rank among the distinct runs, ascending, when there are two
// or more (byRun), else its index. Ranks, not run numbers: runs 0 and 2
// would both fall in fold 0 of 2.
func foldKeys(obs []Observation) (keys []int, byRun bool) {
	rank := map[int]int{}
	for _, o := range obs {
		rank[o.Run] = 0
	}
	runs := make([]int, 0, len(rank))
	for r := range rank {
		runs = append(runs, r)
	}
	slices.Sort(runs)
	for i, r := range runs {
		rank[r] = i
	}
	byRun = len(runs) >= 2
	keys = make([]int, len(obs))
	for i, o := range obs {
		keys[i] = i
		if byRun {
			keys[i] = rank[o.Run]
		}
	}
	return keys, byRun
}
