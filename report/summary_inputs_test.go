package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// The per-plan traces beside a summary.json give the latency CDFs: the
// report's list of inputs says they were read.
func TestSummaryInputNamesTheTracesBesideIt(t *testing.T) {
	data, err := os.ReadFile("testdata/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := Load(t.Context(), traces.SLO{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Sources) != 1 || !strings.Contains(in.Sources[0], "0 with a trace beside it") {
		t.Errorf("sources %q: want the summary, saying that no trace beside it was read", in.Sources)
	}
}

// A summary of one plan says "1 plan", as the report's header reads it.
func TestSummaryInputCountsOnePlan(t *testing.T) {
	in, err := Load(t.Context(), traces.SLO{}, "testdata/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Sources) != 1 || !strings.Contains(in.Sources[0], ": simulated, 1 plan, ") {
		t.Errorf("sources %q: want \"simulated, 1 plan, \"", in.Sources)
	}
}
