package report

import (
	"html"
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

// A KV panel's title is cut to its panel's width as measured in its font,
// not to 50 characters: 49 wide letters (a name in capitals, or in a
// script whose letters are wide) ran past the panel into the next one.
func TestKVPanelTitlesFitTheirPanels(t *testing.T) {
	wide := strings.Repeat("W", 49)
	d, err := Build("t", &Inputs{Runs: []*Run{handRun(wide, 0.1), handRun("b", 0.2)}})
	if err != nil {
		t.Fatal(err)
	}
	svg := figureSVG(d, "kv-utilization")
	style := newPlot("", "", "").Title.TextStyle
	style.Font = sans(11, true)
	panel := (figW - gridPadX) / 2
	found := false
	for _, m := range svgText.FindAllStringSubmatch(svg, -1) {
		if title := html.UnescapeString(m[1]); strings.HasPrefix(title, "WWW") {
			found = true
			if w := style.Width(title); w > panel {
				t.Errorf("title %q is %.0fpt wide, want at most its panel's %.0fpt", title, w.Points(), panel.Points())
			}
		}
	}
	if !found {
		t.Errorf("no KV panel titled by the run's name")
	}
}
