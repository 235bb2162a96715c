package report

import (
	"math"
	"regexp"
	"strconv"
	"testing"

	"gonum.org/v1/plot/plotter"
)

var (
	svgBlackLine = regexp.MustCompile(`<path d="M([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)" style="fill:none;stroke:#000000;stroke-width:0.5" />`)
	svgYLabel    = regexp.MustCompile(`<g transform="rotate\(90\)">\s*<text x="([-\d.]+)"[^>]*>([^<]*)</text>`)
)

// yAxisSpan is where the y axis line (the longest black vertical line)
// runs, from its bottom to its top, in the SVG's y-up coordinates.
func yAxisSpan(t *testing.T, svg []byte) (lo, hi float64) {
	t.Helper()
	for _, m := range svgBlackLine.FindAllSubmatch(svg, -1) {
		x1, y1, x2, y2 := svgNum(t, m[1]), svgNum(t, m[2]), svgNum(t, m[3]), svgNum(t, m[4])
		if x1 == x2 && math.Abs(y2-y1) > hi-lo {
			lo, hi = math.Min(y1, y2), math.Max(y1, y2)
		}
	}
	if hi == lo {
		t.Fatalf("no y axis line in %s", svg)
	}
	return lo, hi
}

// yLabelSpan is where the rotated y label runs along the axis.
func yLabelSpan(t *testing.T, svg []byte, label string) (lo, hi float64) {
	t.Helper()
	m := svgYLabel.FindSubmatch(svg)
	if m == nil || string(m[2]) != label {
		t.Fatalf("no rotated y label %q in %s", label, svg)
	}
	lo = svgNum(t, m[1])
	return lo, lo + newPlot("", "", label).Y.Label.TextStyle.Width(label).Points()
}

func svgNum(t *testing.T, b []byte) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A log y axis keeps the plot area as tall as a linear one and its label
// at the middle of the axis: gonum/plot reserves room for the label
// around the plain average of the axis ends, which on a log axis sits
// near the top, and so left a blank band under the title.
func TestLogYAxisLeavesNoBandUnderTitle(t *testing.T) {
	for _, label := range []string{"P99 TTFT (s)", "$ per 1M output tokens (estimated)"} {
		draw := func(log bool) []byte {
			p := newPlot("P99 TTFT as the offered load grows", "offered load (req/s)", label)
			if _, err := xyLine(p, plotter.XYs{{X: 1, Y: 0.01}, {X: 2, Y: 10}}, 0, false); err != nil {
				t.Fatal(err)
			}
			if log && !logAxis(&p.Y, 0.01, 10) {
				t.Fatal("no log axis over 0.01–10")
			}
			svg, err := render(p, []legendEntry{{"run", nil}})
			if err != nil {
				t.Fatal(err)
			}
			return svg
		}
		linSVG, logSVG := draw(false), draw(true)
		_, linTop := yAxisSpan(t, linSVG)
		lo, hi := yAxisSpan(t, logSVG)
		if hi < linTop-3 {
			t.Errorf("%q: log y axis ends at %.1f pt, %.1f pt under the linear one's %.1f: a blank band under the title", label, hi, linTop-hi, linTop)
		}
		llo, lhi := yLabelSpan(t, logSVG, label)
		if mid := (lo + hi) / 2; math.Abs((llo+lhi)/2-mid) > 1 {
			t.Errorf("%q: label centred at %.1f pt, want the axis middle %.1f", label, (llo+lhi)/2, mid)
		}
		if llo < lo-1 || lhi > hi+1 {
			t.Errorf("%q: label runs %.1f–%.1f pt, past the axis %.1f–%.1f", label, llo, lhi, lo, hi)
		}
	}
}
