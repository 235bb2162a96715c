package calibrate

import (
	"encoding/json"
	"slices"
	"testing"
)

// A caller's Fit that fits terms Analyze would hold at 0 (the resident
// terms, for runs without an engine of slots) records them among those
// fitted anyway, so that a refit from the method fits them too and gives
// the same model; a method written before it was recorded fits none.
func TestAnalyzeRecordsTermsFittedBeyondItsChoice(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	var runs []*RunResult
	t0 := int64(0)
	for _, kind := range []string{KindPrefill, KindDecode, KindMixed} {
		var r *RunResult
		r, t0 = serialRun(kind, 1, prompts, 24, t0)
		runs = append(runs, r)
	}
	fs := &FitSettings{Curve: true}
	fs.Off[TermPostPrefill] = true // held beyond Analyze's choice: without
	orig, err := Analyze(runs, AnalyzeOptions{Fit: fs})
	if err != nil {
		t.Fatal(err)
	}
	m := orig.Method
	want := []string{TermPrefillResident.String(), TermDecodeResident.String(), TermResident.String()}
	if !slices.Equal(m.With, want) || !slices.Equal(m.Without, []string{"cq"}) {
		t.Fatalf("Method.With = %q, Without = %q; want %q, [cq]", m.With, m.Without, want)
	}
	o, err := m.Options()
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(runs, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Method.With, m.With) || !slices.Equal(a.Method.Without, m.Without) {
		t.Errorf("refit's method with %q, without %q; want %q, %q as recorded", a.Method.With, a.Method.Without, m.With, m.Without)
	}
	if got, want := a.Fit.Step, orig.Fit.Step; got != want {
		t.Errorf("refit's coefficients differ from the recorded fit's:\n%+v\nwant\n%+v", got, want)
	}

	var old FitMethod
	if err := json.Unmarshal([]byte(`{"window":8,"relative":true,"no_trim":false,"linear":false,"without":[],"held_out_folds":4}`), &old); err != nil {
		t.Fatal(err)
	}
	if o, err := old.Options(); err != nil || o.With != ([NumTerms]bool{}) {
		t.Errorf("a method without with: options %v, %v; want none fitted beyond Analyze's choice", o.With, err)
	}
	if _, err := (&FitMethod{With: []string{"nope"}}).Options(); err == nil {
		t.Error("method.with naming no term: no error")
	}
	if _, err := (&FitMethod{With: []string{"cq"}, Without: []string{"cq"}}).Options(); err == nil {
		t.Error("a term both with and without: no error")
	}
}
