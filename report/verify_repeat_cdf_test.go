package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// With --repeat N the table's measured figures are the mean of N runs,
// but the candidate's trace is the first run's: its CDF line says it is
// run 1 of N, not the measurement the table shows.
func TestVerificationCDFOfRepeatsNamesTheRun(t *testing.T) {
	dir := t.TempDir()
	tr := oneRequestTrace(t, filepath.Join(dir, "run1.parquet"), "live")
	ok := verify.Repeat{Status: verify.StatusOK, Trace: tr}
	for _, tc := range []struct {
		repeats []verify.Repeat
		want    string
	}{
		{[]verify.Repeat{ok, {Status: verify.StatusOK, Trace: filepath.Join(dir, "run2.parquet")}, {Status: verify.StatusOK}}, "measured (run 1 of 3) —"},
		{nil, "measured —"},
	} {
		res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: ok, SimTrace: tr, Repeats: tc.repeats}}}
		blocks, err := VerificationSection{Result: res}.Blocks(nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range blocks {
			if f, isFig := b.(*Figure); isFig && strings.HasPrefix(f.Name, "verify-rank01-") {
				n++
				if !strings.Contains(string(f.SVG), tc.want) {
					t.Errorf("%d runs: figure %s: want a line labelled %q", len(tc.repeats), f.Name, tc.want)
				}
			}
		}
		if n == 0 {
			t.Errorf("%d runs: no CDF figure", len(tc.repeats))
		}
	}
}
