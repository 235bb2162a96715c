package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A plan whose run stopped at an out-of-memory batch is said to have
// stopped, with why, as simulate prints its outcome; its figures cover
// the run up to the stop and must not read as a whole run's.
func TestReportShowsAnOOMOutcome(t *testing.T) {
	in, err := Load(t.Context(), traces.SLO{}, "testdata/summary-oom.json", "testdata/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build("t", in)
	if err != nil {
		t.Fatal(err)
	}
	html, err := renderHTML(d)
	if err != nil {
		t.Fatal(err)
	}
	h := string(html)
	if !strings.Contains(h, "oom: the run stopped early: sim: out of KV memory: batch 1 at t=0.031s") {
		t.Error("the report does not say the plan oom stopped on an out-of-memory batch")
	}
	if strings.Count(h, "the run stopped early") != 1 {
		t.Error("want only the plan that stopped said to have stopped")
	}
}
