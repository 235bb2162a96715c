package sim

import (
	"strings"
	"testing"
)

// An admission delay past what int64 nanoseconds hold is refused, not
// wrapped to a negative delay.
func TestLinearRefusesHugeAdmissionDelay(t *testing.T) {
	for _, d := range []float64{1e10, 1e300} {
		err := (Linear{C0: 0.01, Admit: Admission{Delay: d}}).Validate()
		if err == nil || !strings.Contains(err.Error(), "Admit.Delay") {
			t.Errorf("Delay %g s: err = %v, want Admit.Delay refused", d, err)
		}
	}
	if err := (Linear{C0: 0.01, Admit: Admission{Delay: MaxAdmissionDelay}}).Validate(); err != nil {
		t.Errorf("Delay %g s: %v", MaxAdmissionDelay, err)
	}
}
