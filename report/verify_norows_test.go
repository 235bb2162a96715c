package report

import (
	"slices"
	"testing"

	"github.com/servesim/servesim/verify"
)

// A measured candidate with no metric rows has a row saying why, as
// verify's table gives it, not only a mention in the ranking's left-out
// list (with no request measured it had no row at all).
func TestVerificationSectionSaysWhyACandidateHasNoRows(t *testing.T) {
	c := verify.CandidateResult{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK}}
	blocks, err := VerificationSection{Result: &verify.Result{Requests: 1, Candidates: []verify.CandidateResult{c}}}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"#1 a", verify.StatusOK, "", "", "", "", "", "no measured rows: no request was measured"}
	for _, b := range blocks {
		if tab, ok := b.(*Table); ok {
			if !slices.ContainsFunc(tab.Rows, func(r []string) bool { return slices.Equal(r, want) }) {
				t.Errorf("rows %q: want %q", tab.Rows, want)
			}
			return
		}
	}
	t.Error("no table")
}
