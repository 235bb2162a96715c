package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// The output-consistency share reads the same in verify's table and the
// report, and never as none or all when it is neither: 1 request of 3000
// that differs is not "0.0%", nor 2999 of 3000 "100.0%".
func TestVerificationConsistencyShareKeepsItsDigits(t *testing.T) {
	for _, tc := range []struct {
		differ int
		want   string
	}{
		{1, "(0.033%)"},
		{2999, "(>99.9%)"},
		{1500, "(50.0%)"},
		{3000, "(100.0%)"},
	} {
		res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK}}},
			Consistency: verify.Consistency{Compared: 3000, Differ: tc.differ, Fraction: float64(tc.differ) / 3000}}
		var table bytes.Buffer
		res.WriteTable(&table)
		if !strings.Contains(table.String(), "differ across candidates "+tc.want) {
			t.Errorf("%d of 3000: verify's table does not say %q:\n%s", tc.differ, tc.want, table.String())
		}
		blocks, err := VerificationSection{Result: res}.Blocks(nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, b := range blocks {
			if tx, ok := b.(*Text); ok && strings.Contains(tx.Text, "different text across candidates "+tc.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%d of 3000: the report's section does not say %q", tc.differ, tc.want)
		}
	}
}
