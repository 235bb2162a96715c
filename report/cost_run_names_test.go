package report

import (
	"strings"
	"testing"
)

// Run names sharing a long prefix (plans named by their settings) must
// still tell their cost bars apart: cut to the same 18 characters, two
// bars carried one label and could not be matched to the table's rows.
func TestRunCostBarsHaveDistinctNames(t *testing.T) {
	in := &Inputs{Runs: []*Run{handRun("llama3-8b-h100-tp1-bs64", 0.1), handRun("llama3-8b-h100-tp1-bs128", 0.2)}}
	d, err := Build("t", in)
	if err != nil {
		t.Fatal(err)
	}
	svg := figureSVG(d, "cost-runs")
	if svg == "" {
		t.Fatal("no run cost figure")
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(svg, ">")[1:] {
		label, _, _ := strings.Cut(part, "<")
		if !strings.HasPrefix(label, "llama3") && !strings.HasPrefix(label, "row ") {
			continue
		}
		if seen[label] {
			t.Errorf("two bars are labelled %q", label)
		}
		seen[label] = true
	}
	if len(seen) != 2 {
		t.Errorf("bar labels %v: want one per run", seen)
	}
}
