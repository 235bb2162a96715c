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
		WriteComparison(&out, r, r, Compare(r, r, 0.1), 0.1)
		if !strings.HasPrefix(out.String(), "A: "+want+" (") {
			t.Errorf("Select(%q): compare's header reads %q, want %q", sel, strings.SplitN(out.String(), "\n", 2)[0], "A: "+want+" (…")
		}
	}
}
