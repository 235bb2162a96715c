package report

import (
	"strings"
	"testing"
)

// Where the configs' costs span more than two decades (one GPU at $0.05
// per 1M output tokens, eight at $50), a linear cost axis from $0
// crushes the cheap configs, the front among them, onto its floor: the
// axis turns logarithmic, its ticks labelled by decade, and the caption
// says so. Costs within two decades keep the linear axis.
func TestParetoCostAxisTurnsLogOverDecades(t *testing.T) {
	rows := paretoRows(6, 0)
	for i, c := range []float64{0.05, 0.08, 0.3, 2, 9, 50} {
		rows[i].USDPerMOutEst = c
	}
	for name, f := range paretoFigureSVGs(t, rows) {
		if !strings.Contains(f.Caption, "log cost axis") {
			t.Errorf("%s: costs over three decades, yet the caption %q names no log cost axis", name, f.Caption)
		}
		for _, tick := range []string{">0.1<", ">1<", ">10<"} {
			if !strings.Contains(string(f.SVG), tick) {
				t.Errorf("%s: no cost tick %s on a log axis", name, tick)
			}
		}
	}
	for name, f := range paretoFigureSVGs(t, paretoRows(6, 0)) { // $1–$6
		if strings.Contains(f.Caption, "log cost axis") {
			t.Errorf("%s: costs within a decade, yet the caption %q names a log cost axis", name, f.Caption)
		}
	}
}

// A Pareto caption notes its log axes as the load curves' do: one bracket,
// inside the sentence, before its full stop.
func TestParetoCaptionNotesLogAxesInOneBracket(t *testing.T) {
	rows := paretoRows(6, 0)
	for i, c := range []float64{0.05, 0.08, 0.3, 2, 9, 50} {
		rows[i].USDPerMOutEst = c
		rows[i].TTFTP99 = c // over three decades too: a log x axis
	}
	want := map[string]string{
		"pareto-0-latency":    " on both (log x axis, log cost axis).",
		"pareto-0-throughput": " on both (log cost axis).",
	}
	for name, f := range paretoFigureSVGs(t, rows) {
		w, ok := want[name]
		if !ok {
			t.Fatalf("figure %s: want one of %v", name, want)
		}
		if !strings.Contains(f.Caption, w) || strings.Contains(f.Caption, ") (") || strings.Contains(f.Caption, ". (") {
			t.Errorf("%s: caption %q, want the log axes noted as %q", name, f.Caption, w)
		}
	}
}
