package calibrate

import (
	"strings"
	"testing"
)

// When the single-step held-out check cannot run, the printout says why
// instead of leaving its line out. Here the windowed check has few
// enough observations for leave-one-out, the single steps far too many.
func TestHeldOutStepsFailureIsPrinted(t *testing.T) {
	// One run: the folds are its observations, 32 windows but 192 steps.
	r, _ := serialRun(KindDecode, 1, []int{32, 64, 128, 256, 32, 64, 128, 256}, 24, 0)
	a, err := Analyze([]*RunResult{r}, AnalyzeOptions{HeldOutK: 150})
	if err != nil {
		t.Fatal(err)
	}
	if a.HeldOutSteps != nil {
		t.Fatalf("single-step check ran with %d folds; want it refused past %d", a.HeldOutSteps.Folds, MaxObservationFolds)
	}
	var b strings.Builder
	a.Print(&b)
	line := ""
	for l := range strings.Lines(b.String()) {
		if strings.HasPrefix(l, "held out, single steps") {
			line = l
		}
	}
	if !strings.Contains(line, "not checked") || !strings.Contains(line, "at most 100 folds") {
		t.Errorf("single-step line %q; want it to say the check was not made and why\n%s", line, b.String())
	}
}
