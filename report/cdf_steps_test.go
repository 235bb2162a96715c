package report

import (
	"fmt"
	"regexp"
	"testing"
)

// lineVertices is, for each path of run i's CDF line in svg, its
// vertices as the SVG writes them: {"Mx,y" or "Lx,y", x, y}.
func lineVertices(svg []byte, i int) [][][]string {
	c := colorOf(i)
	paths := regexp.MustCompile(`<path d="([^"]*)" style="fill:none;stroke:`+fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B)+`;stroke-width:1.8"`).
		FindAllStringSubmatch(string(svg), -1)
	point := regexp.MustCompile(`[ML]([-0-9.e]+),([-0-9.e]+)`)
	lines := make([][][]string, len(paths))
	for j, p := range paths {
		lines[j] = point.FindAllStringSubmatch(p[1], -1)
	}
	return lines
}

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
	lines := lineVertices(f.SVG, 0)
	if len(lines) == 0 {
		t.Fatalf("no line of the run in the figure")
	}
	for _, pts := range lines {
		for i := 1; i < len(pts); i++ {
			if pts[i][1] != pts[i-1][1] && pts[i][2] != pts[i-1][2] {
				t.Errorf("segment %s,%s → %s,%s is neither horizontal nor vertical (line %q)",
					pts[i-1][1], pts[i-1][2], pts[i][1], pts[i][2], pts)
			}
		}
	}
}
