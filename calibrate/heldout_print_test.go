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
