package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// A prediction that nothing completes (throughput 0) against a measured
// run that served the requests is a miss the table fails; the log axis
// cannot draw it, but the scatter says it left it off rather than drop
// the candidate without a word.
func TestScatterNamesThePointsItLeavesOff(t *testing.T) {
	zero, served, p, m := 0.0, 248.0, 1.05, 1.0
	tol := verify.DefaultTolerances()
	for _, tc := range []struct {
		name  string
		cands []verify.CandidateResult
	}{
		{"beside a drawn candidate", []verify.CandidateResult{
			{Rank: 1, Label: "none", Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &zero}, &verify.Metrics{OutTokPerSec: &served}, tol)},
			{Rank: 2, Label: "b", Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p}, &verify.Metrics{OutTokPerSec: &m}, tol)},
		}},
		{"alone", []verify.CandidateResult{
			{Rank: 1, Label: "none", Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &zero}, &verify.Metrics{OutTokPerSec: &served}, tol)},
		}},
	} {
		for i := range tc.cands {
			tc.cands[i].Repeat.Status = verify.StatusOK
		}
		blocks, err := VerificationSection{Result: &verify.Result{Requests: 1, Candidates: tc.cands}}.Blocks(nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, b := range blocks {
			var s string
			switch b := b.(type) {
			case *Figure:
				s = b.Caption
			case *Text:
				s = b.Text
			}
			if strings.Contains(s, "#1 none") && strings.Contains(s, verify.MetricThroughput) && strings.Contains(strings.ToLower(s), "left off") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no word of #1's throughput (predicted 0, measured %v) left off the scatter", tc.name, served)
		}
	}
}
