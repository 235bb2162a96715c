package calibrate

import (
	"bytes"
	"strings"
	"testing"
)

// With one measured run (a refit of a calibration stopped after its first
// run) the held-out check holds out every k-th observation, not whole
// runs, and the printed line says so.
func TestPrintHeldOutOfOneRun(t *testing.T) {
	r, _ := serialRunStep(KindPrefill, 1, []int{32, 64, 128, 256, 32, 64, 128, 256}, 24, 0, 5e6)
	a, err := Analyze([]*RunResult{r}, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.HeldOut.ByRun {
		t.Fatal("one run held out by run")
	}
	var b bytes.Buffer
	a.Print(&b)
	var line string
	for l := range strings.Lines(b.String()) {
		if strings.HasPrefix(l, "held out (") {
			line = l
		}
	}
	if want := "held out (4-fold cross-validation over the observations of one run, not whole runs)"; !strings.HasPrefix(line, want) {
		t.Errorf("printed %q\nwant it to open %q", line, want)
	}
}

// With fewer runs than folds the empty folds fit nothing: the check is
// leave-one-run-out, and the printed line counts the folds it ran.
func TestPrintHeldOutFoldsRun(t *testing.T) {
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	var runs []*RunResult
	t0 := int64(0)
	for _, kind := range []string{KindPrefill, KindDecode, KindMixed} {
		var r *RunResult
		r, t0 = serialRun(kind, 1, prompts, 24, t0)
		runs = append(runs, r)
	}
	a, err := Analyze(runs, AnalyzeOptions{HeldOutK: 4})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	a.Print(&b)
	var line string
	for l := range strings.Lines(b.String()) {
		if strings.HasPrefix(l, "held out (") {
			line = l
		}
	}
	if want := "held out (3-fold cross-validation over whole runs, one per run: 4 folds asked, 3 runs)"; !strings.HasPrefix(line, want) {
		t.Errorf("printed %q\nwant it to open %q", line, want)
	}
	if a.HeldOut.Folds != 3 {
		t.Errorf("HeldOut.Folds = %d, want 3", a.HeldOut.Folds)
	}
}
