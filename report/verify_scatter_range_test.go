package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// A ratio near the float64 maximum (a prediction of 1.7e308 against a
// measured 1) is drawn on a finite axis: the scatter's own 20% margin
// overflowed its top to +Inf, which a log axis cannot draw.
func TestScatterAxisStaysFiniteNearTheFloatMaximum(t *testing.T) {
	huge, one := math.MaxFloat64/1.1, 1.0
	rows := verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &huge}, &verify.Metrics{OutTokPerSec: &one}, verify.DefaultTolerances())
	res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK}, Rows: rows}}}
	var fig *Figure
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("scatterFigure panicked: %v", r)
			}
		}()
		fig, _, err = scatterFigure(res)
	}()
	if err != nil || fig == nil {
		t.Fatalf("figure %v, err %v", fig, err)
	}
	if svg := string(fig.SVG); strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Errorf("scatter SVG has a NaN or Inf coordinate")
	}
}
