package verify

import (
	"strings"
	"testing"
)

// The line on capped loads speaks of figures measured at that load: a
// capped candidate whose engine failed to start was never replayed and has
// none, so it is not named (its status line says what happened).
func TestCappedLoadLineNamesOnlyComparedCandidates(t *testing.T) {
	capped := func(rank int64, label, status string) CandidateResult {
		return CandidateResult{Rank: rank, Label: label, CapacityLowerBound: true, Repeat: Repeat{Status: status}}
	}
	res := &Result{Candidates: []CandidateResult{capped(1, "ran", StatusOK), capped(2, "nostart", "engine_start_failed")}}
	line := res.CappedLoadLine()
	if !strings.Contains(line, "#1 ran") || strings.Contains(line, "nostart") {
		t.Errorf("line %q: want #1 ran named and #2 nostart, never replayed, not", line)
	}
	res.Candidates = res.Candidates[1:]
	if line := res.CappedLoadLine(); line != "" {
		t.Errorf("only a capped candidate that never ran: line %q, want none", line)
	}
}
