package calibrate

import (
	"math"
	"strings"
	"testing"
)

// A NaN or infinite fraction passed the check for a negative one, and its
// window converted to an int64 no comparison makes sense of.
func TestRecoverStepsRefusesNonFiniteToleranceFraction(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), -0.5} {
		_, _, err := RecoverSteps(nil, nil, &RecoverSettings{ToleranceFraction: f})
		if err == nil || !strings.Contains(err.Error(), "tolerance fraction") {
			t.Errorf("tolerance fraction %g: err %v, want one naming the tolerance fraction", f, err)
		}
	}
}

// A finite fraction can still make a window past int64: it is the widest
// window, not a wrapped (negative) one.
func TestRecoverStepsHugeToleranceFractionSaturates(t *testing.T) {
	rows, _ := tinyEngine(workload(20, 5, 4), genConfig{coef: trueCoef, maxSeqs: 8, seed: 4})
	_, st, err := RecoverSteps(nil, rows, &RecoverSettings{ToleranceFraction: 1e300})
	if err != nil {
		t.Fatal(err)
	}
	if st.Tolerance != math.MaxInt64 {
		t.Errorf("tolerance fraction 1e300: window %d ns, want %d (the widest)", st.Tolerance, int64(math.MaxInt64))
	}
}
