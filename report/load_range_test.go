package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A results file's load curve, hand-edited or extreme, must not stop the
// report: a scale of 0 or below beside scales far apart (which put the
// load axis on a log scale: "Values must be greater than 0 for a log
// scale"), or values near the float64 maximum and equal ("illegal range").
func TestLoadCurveExtremeValues(t *testing.T) {
	for _, curve := range [][]sweep.CurvePoint{
		{{Scale: 0, OutTokPerSec: 10, TTFTP99: 1}, {Scale: 1, OutTokPerSec: 15, TTFTP99: 2}, {Scale: 16, OutTokPerSec: 16, TTFTP99: 9}},
		{{Scale: -1, OutTokPerSec: 10, TTFTP99: 1}, {Scale: 1, OutTokPerSec: 15, TTFTP99: 2}, {Scale: 16, OutTokPerSec: 16, TTFTP99: 9}},
		{{Scale: 1, OutTokPerSec: 1.7e308, TTFTP99: 1.7e308}, {Scale: 2, OutTokPerSec: 1.7e308, TTFTP99: 1.7e308}},
		{{Scale: 1e17, OutTokPerSec: 1e17, TTFTP99: 1e17}, {Scale: 1e17, OutTokPerSec: 1e17, TTFTP99: 1e17}},
	} {
		t.Run(fmt.Sprint(curve), func(t *testing.T) {
			r := sweep.Row{Rank: 1, Label: "c", Outcome: sweep.OutcomeOK, Scale: curve[1].Scale, KneeScale: curve[0].Scale,
				USDPerMOutEst: 1, SatUSDPerMOut: 1, TTFTP99: 1, OutTokPerSec: 10, Curve: curve}
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("Build panicked: %v", p)
				}
			}()
			d, err := Build("t", &Inputs{Sweeps: []*Sweep{{Name: "s", Rows: []sweep.Row{r}}}})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, s := range d.Sections {
				for _, b := range s.Blocks {
					if f, ok := b.(*Figure); ok && strings.HasPrefix(f.Name, "load-") {
						n++
					}
				}
			}
			if n != 2 {
				t.Errorf("%d load figures, want the throughput and the P99 TTFT", n)
			}
		})
	}
}
