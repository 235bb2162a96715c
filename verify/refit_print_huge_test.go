package verify

import (
	"bytes"
	"strings"
	"testing"
)

// The refit's step errors read as every other error verify prints: in
// exponent form when huge, not as sixteen digits.
func TestRefitPrintsHugeStepErrorAsOtherErrors(t *testing.T) {
	huge, small := 1e14, 0.123
	rr := &RefitResult{StepMdAPEBefore: &huge, StepMdAPEAfter: &small}
	var b bytes.Buffer
	rr.Print(&b)
	if !strings.Contains(b.String(), "1e+16% before → 12.3% after") {
		t.Errorf("refit:\n%s\nwant 1e+16%% before → 12.3%% after", b.String())
	}
}
