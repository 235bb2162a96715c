package report

import (
	"strings"
	"testing"
)

// Runs of one plan in two simulate --out folders are named with their
// paths, which share a long prefix: cut to the panel's width, the KV
// panels of both read alike and lost their figures (blocks, mean, peak).
func TestKVPanelsTellLongNamesApart(t *testing.T) {
	a := handRun("continuous (/home/someone/projects/serving-experiments/llama-h100-week49/baseline/summary.json)", 0.1)
	b := handRun("continuous (/home/someone/projects/serving-experiments/llama-h100-week49/candidate/summary.json)", 0.2)
	d, err := Build("t", &Inputs{Runs: []*Run{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	svg := figureSVG(d, "kv-utilization")
	var titles []string
	for _, part := range strings.Split(svg, ">")[1:] {
		label, _, _ := strings.Cut(part, "<")
		if strings.Contains(label, "continuous") || strings.Contains(label, "row ") || strings.Contains(label, "blocks,") {
			titles = append(titles, label)
		}
	}
	seen := map[string]bool{}
	for _, l := range titles {
		if seen[l] && !strings.Contains(l, "blocks,") {
			t.Errorf("two KV panels are titled %q", l)
		}
		seen[l] = true
	}
	if n := strings.Count(svg, "100 blocks, mean 20%, peak 50%"); n != 2 {
		t.Errorf("%d panels give their blocks, mean and peak in full: want 2; titles %q", n, titles)
	}
}
