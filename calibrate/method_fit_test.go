package calibrate

import (
	"slices"
	"testing"
)

// A profile says how it was fitted: the terms AnalyzeOptions.Fit switched
// off beyond Analyze's own choice are recorded among those held at 0 (so
// that a refit from the method holds them too), and so are its
// collinearity threshold, confidence level and whether its caller gave
// the weights.
func TestAnalyzeRecordsFitSettings(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	var runs []*RunResult
	t0 := int64(0)
	for _, kind := range []string{KindPrefill, KindDecode, KindMixed} {
		var r *RunResult
		r, t0 = serialRun(kind, 1, prompts, 24, t0)
		runs = append(runs, r)
	}
	base, err := Analyze(runs, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := base.Method; m.Collinearity != 1e-6 || m.Confidence != 0.95 || m.Weights != WeightsSteps || len(m.Without) != 0 {
		t.Errorf("defaults: method %+v, want collinearity 1e-6, confidence 0.95, weights %q, none without", m, WeightsSteps)
	}

	fs := &FitSettings{Curve: true, Collinearity: 1e-3, Confidence: 0.9}
	fs.Off[TermPrefillResident] = true // off by default here: not recorded
	fs.Off[TermResident] = true
	fs.Off[TermDecodeResident] = true
	fs.Off[TermPostPrefill] = true // on by default: recorded
	a, err := Analyze(runs, AnalyzeOptions{Fit: fs})
	if err != nil {
		t.Fatal(err)
	}
	m := a.Method
	if !slices.Equal(m.Without, []string{"cq"}) {
		t.Errorf("Method.Without = %q, want [cq]", m.Without)
	}
	if m.Collinearity != 1e-3 || m.Confidence != 0.9 || m.Weights != WeightsSteps {
		t.Errorf("method %+v, want collinearity 1e-3, confidence 0.9, weights %q", m, WeightsSteps)
	}
	o, err := m.Options()
	if err != nil {
		t.Fatal(err)
	}
	if !o.Without[TermPostPrefill] {
		t.Error("a refit from the method fits cq")
	}

	weights := make([]float64, len(base.Observations)+base.DroppedLateFirst)
	for i := range weights {
		weights[i] = 1
	}
	a, err = Analyze(runs, AnalyzeOptions{NoTrim: true, Fit: &FitSettings{Curve: true, Weights: weights}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Method.Weights != WeightsGiven {
		t.Errorf("Method.Weights = %q for the caller's weights, want %q", a.Method.Weights, WeightsGiven)
	}
}

// A refit from a profile's method fits with the collinearity threshold
// and confidence level the method records, so it gives the same
// intervals and records the same settings; a method written before
// they were recorded (0) refits with the defaults.
func TestRefitFromMethodKeepsFitSettings(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	var runs []*RunResult
	t0 := int64(0)
	for _, kind := range []string{KindPrefill, KindDecode, KindMixed} {
		var r *RunResult
		r, t0 = serialRun(kind, 1, prompts, 24, t0)
		runs = append(runs, r)
	}
	refit := func(m FitMethod) *Analysis {
		t.Helper()
		o, err := m.Options()
		if err != nil {
			t.Fatal(err)
		}
		a, err := Analyze(runs, o)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}

	// Analyze's own choice of terms for runs without an engine of slots.
	fs := &FitSettings{Curve: true, Relative: true, Collinearity: 1e-3, Confidence: 0.8}
	fs.Off[TermPrefillResident], fs.Off[TermDecodeResident], fs.Off[TermResident] = true, true, true
	orig, err := Analyze(runs, AnalyzeOptions{Fit: fs})
	if err != nil {
		t.Fatal(err)
	}
	a := refit(orig.Method)
	if a.Method.Collinearity != 1e-3 || a.Method.Confidence != 0.8 {
		t.Errorf("refit's method %+v, want collinearity 1e-3, confidence 0.8 as recorded", a.Method)
	}
	if got, want := a.Fit.Step, orig.Fit.Step; got != want {
		t.Errorf("refit's coefficients differ from the recorded fit's: dense %+v, want %+v", got.Dense, want.Dense)
	}

	old := FitMethod{Window: 8, Relative: true, Without: []string{}, HeldOutFolds: 4}
	a = refit(old)
	if a.Method.Collinearity != DefaultCollinearity || a.Method.Confidence != DefaultConfidence || a.Method.Weights != WeightsSteps {
		t.Errorf("refit of a method without fit settings: %+v, want the defaults", a.Method)
	}
	def, err := Analyze(runs, AnalyzeOptions{Relative: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Fit.Step, def.Fit.Step; got != want {
		t.Errorf("refit of a method without fit settings differs from the default fit: cd %+v, want %+v", got.Cd, want.Cd)
	}
}
