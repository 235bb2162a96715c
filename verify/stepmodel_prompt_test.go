package verify

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
)

// A profile that prices decode steps but not prompt tokens (c0, cp, ca
// and the dense curve all 0) cannot simulate a request: its prompt's step
// takes no time, which the simulator refuses mid-run without naming the
// profile. It is refused as it is loaded, by name.
func TestStepModelRefusesFreePromptSteps(t *testing.T) {
	prof, err := calibrate.LoadProfile("../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*calibrate.Coef{&prof.Step.C0, &prof.Step.Cp, &prof.Step.Ca} {
		*c = calibrate.Coef{Status: calibrate.StatusBound}
	}
	if err := prof.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := StepModel(prof, "p.json"); err == nil || !strings.Contains(err.Error(), "p.json") || !strings.Contains(err.Error(), "prompt") {
		t.Errorf("StepModel: error %v, want one naming p.json and the prompt step", err)
	}
}
