package calibrate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The header's run and request counts are the measured ones, as it says:
// the warm-up is told apart, not added in.
func TestPlanPrintExcludesWarmup(t *testing.T) {
	p, err := NewPlan(PlanQuick, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runs, reqs, warm := 0, 0, 0
	for _, r := range p.Runs {
		if r.Kind == KindWarmup {
			warm += r.Requests
			continue
		}
		runs++
		reqs += r.Requests
	}
	var b bytes.Buffer
	p.Print(&b)
	header, _, _ := strings.Cut(b.String(), "\n")
	if want := fmt.Sprintf("plan quick: %d runs, %d requests, after a warm-up of %d ", runs, reqs, warm); !strings.HasPrefix(header, want) {
		t.Errorf("header %q\nwant it to open %q", header, want)
	}
}
