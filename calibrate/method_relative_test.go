package calibrate

import "testing"

// The method a profile records is the one fitted: FitSettings.Relative
// from AnalyzeOptions.Fit decides the weighting over
// AnalyzeOptions.Relative, with or without Fit.Weights, as Fit.Curve does over
// AnalyzeOptions.Linear, so a refit from the recorded method
// fits the same model, weighed the same way.
func TestAnalyzeRecordsFittedRelative(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	var runs []*RunResult
	t0 := int64(0)
	for _, kind := range []string{KindPrefill, KindDecode, KindMixed} {
		var r *RunResult
		r, t0 = serialRun(kind, 1, prompts, 24, t0)
		runs = append(runs, r)
	}
	// Fit.Weights are per windowed observation, late first tokens included.
	base, err := Analyze(runs, AnalyzeOptions{NoTrim: true})
	if err != nil {
		t.Fatal(err)
	}
	weights := make([]float64, len(base.Observations)+base.DroppedLateFirst)
	for i := range weights {
		weights[i] = 1
	}
	for _, c := range []struct {
		name string
		opt  AnalyzeOptions
		want bool
	}{
		{"fit relative", AnalyzeOptions{Fit: &FitSettings{Curve: true, Relative: true}}, true},
		{"fit weights", AnalyzeOptions{Relative: true, NoTrim: true, Fit: &FitSettings{Curve: true, Weights: weights}}, false},
		// Fit.Relative false is the caller's choice of absolute error,
		// weights or none.
		{"fit absolute", AnalyzeOptions{Relative: true, Fit: &FitSettings{Curve: true}}, false},
	} {
		a, err := Analyze(runs, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if a.Relative != c.want || a.Method.Relative != c.want {
			t.Errorf("%s: Relative = %v, Method.Relative = %v, want both %v", c.name, a.Relative, a.Method.Relative, c.want)
		}
		if a.Method.Linear {
			t.Errorf("%s: Method.Linear for a fit of the curve", c.name)
		}
	}
	// Fit replaces Linear too: a fit without the curve is linear.
	a, err := Analyze(runs, AnalyzeOptions{Fit: &FitSettings{}})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Method.Linear {
		t.Error("linear fit: Method.Linear = false")
	}
}
