package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// compare names a sweep's config as the report's tables and figures do:
// "#2" selects the config the report shows as #2, and compare's header
// calls it "#2 label", not just "label".
func TestCompareNamesARankedConfigAsTheReport(t *testing.T) {
	sw := &Sweep{Name: "s", Path: "s.parquet", Rows: []sweep.Row{
		{Index: 0, Rank: 1, Label: "tp1", Outcome: sweep.OutcomeOK},
		{Index: 1, Rank: 2, Label: "tp2", Outcome: sweep.OutcomeOK},
		{Index: 2, Label: "tp4", Outcome: sweep.OutcomeInfeasible},
	}}
	in := &Inputs{Sweeps: []*Sweep{sw}}
	for sel, want := range map[string]string{"#2": "#2 tp2", "rank=2": "#2 tp2", "index=2": "index=2 tp4", "tp1": "#1 tp1"} {
		r, err := in.Select(sel)
		if err != nil {
			t.Errorf("Select(%q): %v", sel, err)
			continue
		}
		var out strings.Builder
		WriteComparison(&out, r, r, compareRuns(t, r, r, 0.1), 0.1)
		if !strings.HasPrefix(out.String(), "A: "+want+" (") {
			t.Errorf("Select(%q): compare's header reads %q, want %q", sel, strings.SplitN(out.String(), "\n", 2)[0], "A: "+want+" (…")
		}
	}
}

// A bare number after PATH# is a name, as a plan or label may be one, so
// it never means a rank; when nothing bears it, the error says how to name
// a rank, "#1" or "rank=1", rather than leaving the user at a dead end.
func TestSelectBareNumberErrorNamesTheRankForms(t *testing.T) {
	sw := &Sweep{Name: "s", Path: "s.parquet", Rows: []sweep.Row{
		{Index: 0, Rank: 1, Label: "tp1", Outcome: sweep.OutcomeOK},
		{Index: 1, Rank: 2, Label: "2", Outcome: sweep.OutcomeOK},
	}}
	in := &Inputs{Sweeps: []*Sweep{sw}}
	if r, err := in.Select("2"); err != nil || r.Name != "#2 2" {
		t.Errorf("Select(\"2\") = %v, %v; want the config labelled 2", r, err)
	}
	_, err := in.Select("1")
	want := `no run or config matches "1": a rank is named #1 or rank=1`
	if err == nil || err.Error() != want {
		t.Errorf("Select(\"1\") error %v, want %q", err, want)
	}
	if _, err := in.Select("tp3"); err == nil || err.Error() != `no run or config matches "tp3"` {
		t.Errorf("Select(\"tp3\") error %v, want no rank hint", err)
	}
}
