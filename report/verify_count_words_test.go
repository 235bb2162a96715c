package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// The section's first line counts metrics and candidates in words that
// agree with the count: "1 metric", "2 candidates", never "metric(s)".
func TestVerificationCountsInWords(t *testing.T) {
	for _, tc := range []struct {
		failures, incomplete int
		lead, want           string
	}{
		{1, 1, "0 of 1 candidate measured live on 1 request ", "1 metric outside tolerance, 1 candidate not measured."},
		{2, 0, "1 of 1 candidate measured live on 1 request ", "2 metrics outside tolerance, 0 candidates not measured."},
	} {
		res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK}}},
			Requests: 1, ToleranceFailures: tc.failures, Incomplete: tc.incomplete}
		blocks, err := VerificationSection{Result: res}.Blocks(nil)
		if err != nil {
			t.Fatal(err)
		}
		text := blocks[0].(*Text).Text
		if !strings.Contains(text, tc.want) || !strings.HasPrefix(text, tc.lead) {
			t.Errorf("first line %q: want it to count in words: %q…%q", text, tc.lead, tc.want)
		}
	}
}
