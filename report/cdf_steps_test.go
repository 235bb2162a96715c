package report

import (
	"fmt"
	"regexp"
	"testing"
)

// The empirical CDF is a step function: of two requests, of 1 s and 3 s,
// half are within 2 s, not the three quarters a straight line from
// (1 s, 0.5) to (3 s, 1) reads. Every segment of a run's line is
// horizontal or vertical.
func TestLatencyCDFIsDrawnAsSteps(t *testing.T) {
	r := &Run{Name: "r", Lat: &Latencies{E2E: []float64{1, 3}}}
	f, err := cdfFigure("cdf-e2e", "E2E", []*Run{r}, func(l *Latencies) []float64 { return l.E2E })
	if err != nil {
		t.Fatal(err)
	}
	c := colorOf(0)
	lines := regexp.MustCompile(`<path d="([^"]*)" style="fill:none;stroke:`+fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B)+`;stroke-width:1.8"`).
		FindAllStringSubmatch(string(f.SVG), -1)
	if len(lines) == 0 {
		t.Fatalf("no line of the run in the figure")
	}
	point := regexp.MustCompile(`[ML]([-0-9.e]+),([-0-9.e]+)`)
	for _, l := range lines {
		pts := point.FindAllStringSubmatch(l[1], -1)
		for i := 1; i < len(pts); i++ {
			if pts[i][1] != pts[i-1][1] && pts[i][2] != pts[i-1][2] {
				t.Errorf("segment %s,%s → %s,%s is neither horizontal nor vertical (path %s)",
					pts[i-1][1], pts[i-1][2], pts[i][1], pts[i][2], l[1])
			}
		}
	}
}
