package verify

import (
	"bytes"
	"strings"
	"testing"
)

// The count of metrics outside tolerance is verify's exit message, which
// goes out with every table (and without one, under --json): the table
// does not say it again, so a run does not print it twice.
func TestWriteTableLeavesTheToleranceCountToTheExitMessage(t *testing.T) {
	res := &Result{Candidates: []CandidateResult{{Rank: 1, Label: "a", Repeat: Repeat{Status: StatusOK}}}, ToleranceFailures: 2}
	var b bytes.Buffer
	res.WriteTable(&b)
	if strings.Contains(b.String(), "outside tolerance") {
		t.Errorf("the table repeats the exit message's count:\n%s", b.String())
	}
}
