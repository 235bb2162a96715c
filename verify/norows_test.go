package verify

import (
	"strings"
	"testing"
)

// A measured candidate with no metric rows still has a line in the table
// saying why, not only a mention in the ranking line's left-out list.
func TestWriteTableGivesACandidateWithNoRowsALine(t *testing.T) {
	for _, tc := range []struct {
		measured Metrics
		failed   map[string]int
		want     string
	}{
		{Metrics{Requests: 4}, map[string]int{"timeout": 4}, "#2 c2  status  OK: no measured rows: every request failed\n"},
		{Metrics{}, nil, "#2 c2  status  OK: no measured rows: no request was measured\n"},
		{Metrics{Requests: 4, Completed: 4}, nil, "#2 c2  status  OK: no measured rows: no metric was compared\n"},
	} {
		cands := []CandidateResult{
			{Rank: 1, Label: "c1", Repeat: Repeat{Status: StatusStartFailed, Detail: "exit status 1"}},
			{Rank: 2, Label: "c2", Repeat: Repeat{Status: StatusOK, Measured: tc.measured, FailedByKind: tc.failed}},
		}
		res := &Result{Candidates: cands}
		res.finish()
		var tab strings.Builder
		res.WriteTable(&tab)
		got := strings.Join(strings.Fields(tab.String()), " ")
		if want := strings.Join(strings.Fields(tc.want), " "); !strings.Contains(got, want) {
			t.Errorf("%+v: table:\n%s\nwant a line %q", tc.measured, tab.String(), tc.want)
		}
	}
}
