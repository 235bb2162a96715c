package calibrate

import (
	"strings"
	"testing"
)

// Too few steps for the terms they excite: the error names the terms and
// how many steps a fit of them needs, so that the plan can be lengthened.
func TestFitStepsTooFewNamesTermsAndNeed(t *testing.T) {
	obs := []Observation{
		{DecodeSeqs: 1, DecodeContext: 100, Seconds: 0.011},
		{DecodeSeqs: 4, DecodeContext: 900, Seconds: 0.016},
		{DecodeSeqs: 2, DecodeContext: 700, Seconds: 0.013},
	}
	s := &FitSettings{}
	for _, t := range []Term{TermPrefillResident, TermDecodeResident, TermResident, TermPostPrefill} {
		s.Off[t] = true
	}
	_, err := FitSteps(obs, s)
	if err == nil {
		t.Fatal("fit of 3 steps to 3 free terms succeeded, want an error")
	}
	for _, want := range []string{"3 observations for 3 free terms (c0, cd, ck)", "want at least 4 observations"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
