package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// verify.json takes any predicted ÷ measured its rows give: the scatter
// draws a finite axis whatever they are, a ratio near the smallest
// float's included (its margin below underflowed to 0, which a log axis
// cannot draw).
func TestScatterAxisStaysFiniteAtExtremeRatios(t *testing.T) {
	for _, c := range [][2]float64{{5e-324, 1}, {1, 1.7e308}, {1e-310, 1}, {1.7e308, 1}, {1e308, 1e-10}} {
		p, m, one := c[0], c[1], 1.0
		rows := verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p, TTFTMean: &one}, &verify.Metrics{OutTokPerSec: &m, TTFTMean: &one}, verify.DefaultTolerances())
		res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK}, Rows: rows}}}
		var fig *Figure
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = nil
					t.Errorf("%v ÷ %v: scatterFigure panicked: %v", p, m, r)
				}
			}()
			fig, _, err = scatterFigure(res)
		}()
		if err != nil || fig == nil {
			t.Errorf("%v ÷ %v: figure %v, err %v", p, m, fig, err)
			continue
		}
		if svg := string(fig.SVG); strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
			t.Errorf("%v ÷ %v: scatter SVG has a NaN or Inf coordinate", p, m)
		}
	}
}
