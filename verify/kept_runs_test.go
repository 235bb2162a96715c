package verify

import (
	"strings"
	"testing"
)

// A candidate whose later run failed keeps the figures of the runs before
// it: the table says so on a line of its own, which the failure's detail,
// cut to one line, cannot push out of sight.
func TestTableSaysTheRunsKeptBeforeAFailure(t *testing.T) {
	long := "engine exited with status 1 during the replay; its log ends: " + strings.Repeat("worker error ", 20)
	c := CandidateResult{Rank: 2, Label: "seqs=6", Repeat: Repeat{Status: StatusDied,
		Detail: "run 3 of 3: " + long + "; measured: the mean of runs 1–2, which succeeded"}}
	c.Repeats = []Repeat{{Status: StatusOK}, {Status: StatusOK}, {Status: StatusDied}}
	res := &Result{Candidates: []CandidateResult{c}}
	var b strings.Builder
	res.WriteTable(&b)
	if want := "runs 1–2 succeeded before run 3 failed"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant %q", b.String(), want)
	}
	c.Repeats = c.Repeats[1:] // run 2 of 3 failed
	res.Candidates[0] = c
	b.Reset()
	res.WriteTable(&b)
	if want := "run 1 succeeded before run 2 failed"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant %q", b.String(), want)
	}
}
