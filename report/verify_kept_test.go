package report

import (
	"slices"
	"testing"

	"github.com/servesim/servesim/verify"
)

// A candidate that failed in a later run shows, as verify prints it, the
// runs that succeeded before it.
func TestVerificationSectionSaysTheRunsKept(t *testing.T) {
	c := verify.CandidateResult{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusDied, Detail: "run 2 of 3: died"},
		Repeats: []verify.Repeat{{Status: verify.StatusOK}, {Status: verify.StatusDied}}}
	blocks, err := VerificationSection{Result: &verify.Result{Requests: 1, Candidates: []verify.CandidateResult{c}}}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"#1 a", verify.StatusDied, "runs", "", "", "", "", c.KeptRuns()}
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
