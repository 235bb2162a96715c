package report

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/servesim/servesim/verify"
)

// Predictions within a few percent, the scatter's usual case, put every
// point within a decade of 1: its log axis still labels more than the 1
// between them, so that a point's ratio can be read off it.
func TestScatterLabelsANarrowRatioAxis(t *testing.T) {
	p1, p2, m := 1.05, 0.93, 1.0
	res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a",
		Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p1, TTFTMean: &p2}, &verify.Metrics{OutTokPerSec: &m, TTFTMean: &m}, verify.DefaultTolerances())}}}
	fig, _, err := scatterFigure(res)
	if err != nil || fig == nil {
		t.Fatalf("figure %v, err %v", fig, err)
	}
	// The metric axis labels 1 … 10; a ratio label is any other number.
	var ratios []string
	for _, l := range regexp.MustCompile(`>([^<>]*)</text>`).FindAllStringSubmatch(string(fig.SVG), -1) {
		if v, err := strconv.ParseFloat(l[1], 64); err == nil && (v != float64(int(v)) || v < 1 || v > 10) {
			ratios = append(ratios, l[1])
		}
	}
	if len(ratios) == 0 {
		t.Error("the ratio axis labels no value but 1")
	}
}
