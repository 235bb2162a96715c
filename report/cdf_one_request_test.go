package report

import "testing"

// A run of one successful request has a CDF all the same: 0 below its
// latency and 1 from it on. Its line is that rise, not a lone point that
// draws nothing and leaves the run in the legend with no line.
func TestLatencyCDFOfOneRequestDrawsItsRise(t *testing.T) {
	r := &Run{Name: "r", Lat: &Latencies{E2E: []float64{2}}}
	f, err := cdfFigure("cdf-e2e", "E2E", []*Run{r}, func(l *Latencies) []float64 { return l.E2E })
	if err != nil {
		t.Fatal(err)
	}
	lines := lineVertices(f.SVG, 0)
	for _, pts := range lines {
		for i := 1; i < len(pts); i++ {
			if pts[i][1] == pts[i-1][1] && pts[i][2] != pts[i-1][2] {
				return // a vertical segment: the rise (the legend's thumbnail is horizontal)
			}
		}
	}
	t.Errorf("no vertical rise of the run's line in the figure; its lines: %q", lines)
}
