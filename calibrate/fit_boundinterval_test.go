package calibrate

import (
	"bytes"
	"strings"
	"testing"
)

// A term that the noise pushes below 0 is held there by NNLS, but its true
// value is still positive: the 95% interval reported for it must hold that
// value about as often as a free term's does. At 15% noise on 60 steps, ca
// is held at 0 in about a third of the seeds; with no interval there, its
// coverage was 69% (c0's 82%, cd's 80%).
func TestFitStepsHeldTermIntervalCovers(t *testing.T) {
	const seeds = 300
	coef := trueCoef
	var covered [TermPrefillResident]int
	held := 0
	for seed := range uint64(seeds) {
		f, err := FitSteps(synthObs(60, coef, 0.15, 90000+seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range TermPrefillResident {
			c := f.Step.At(Term(i))
			if c.Status == StatusBound {
				held++
			}
			if c.Lo <= coef[i] && coef[i] <= c.Hi {
				covered[i]++
			}
		}
	}
	if held < 100 {
		t.Fatalf("%d terms held at 0 over %d seeds: the design no longer tests held terms", held, seeds)
	}
	// 95% of 300 is 285 ± 3.8 (binomial sd): allow about three.
	for i, n := range covered {
		if n < 273 {
			t.Errorf("%s: its 95%% interval covered the truth in %d of %d seeds", Term(i), n, seeds)
		}
	}
	t.Logf("coverage of %d seeds, %d terms held at 0: %v", seeds, held, covered)
}

// The printed fit shows a held term's interval, with its status, so that
// a reader sees how large the term may be though the fit holds it at 0.
func TestPrintHeldTermInterval(t *testing.T) {
	r, _ := serialRunStep(KindPrefill, 1, []int{32, 64, 128, 256, 32, 64, 128, 256}, 24, 0, 5e6)
	a, err := Analyze([]*RunResult{r}, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	*a.Fit.Step.At(TermPrefillAttn) = Coef{Status: StatusBound, Lo: -2e-9, Hi: 2e-9}
	var b bytes.Buffer
	a.Print(&b)
	want := "[-2.0000, 2.0000] (bound) ns/(prefill token × context)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("printed:\n%s\nwant a line with %q", b.String(), want)
	}
}
