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
