package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A hand-edited results file can hold a load-curve point whose output
// throughput is NaN or infinite at the knee or the SLO capacity: the
// report must still be drawn, with no NaN in it, and say which mark it
// left out (it once failed as a whole: "plotter: NaN data point").
func TestLoadCurveSkipsKneeWithoutThroughput(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		curve := []sweep.CurvePoint{{Scale: 1, OutTokPerSec: 10, TTFTP99: 1}, {Scale: 2, OutTokPerSec: bad, TTFTP99: 2},
			{Scale: 4, OutTokPerSec: 11, TTFTP99: 9}}
		rows := []sweep.Row{
			{Index: 0, Rank: 1, Label: "bad", Outcome: sweep.OutcomeOK, Scale: 2, KneeScale: 2, USDPerMOutEst: 1,
				SatUSDPerMOut: 1, TTFTP99: 2, OutTokPerSec: 10, Curve: curve},
			{Index: 1, Rank: 2, Label: "good", Outcome: sweep.OutcomeOK, Scale: 1, KneeScale: 1, USDPerMOutEst: 2,
				SatUSDPerMOut: 2, TTFTP99: 1, OutTokPerSec: 10, Curve: curve[:1:1]},
		}
		rows[1].Curve = append(rows[1].Curve, sweep.CurvePoint{Scale: 2, OutTokPerSec: 10.1, TTFTP99: 5})
		d, err := Build("t", &Inputs{Sweeps: []*Sweep{{Name: "s", Path: "s.parquet", Rows: rows}}})
		if err != nil {
			t.Fatalf("throughput %v at the knee: %v", bad, err)
		}
		var thr *Figure
		for _, s := range d.Sections {
			for _, b := range s.Blocks {
				if f, ok := b.(*Figure); ok {
					if strings.Contains(string(f.SVG), "NaN") {
						t.Errorf("throughput %v: figure %s draws NaN", bad, f.Name)
					}
					if f.Name == "load-0-throughput" {
						thr = f
					}
				}
			}
		}
		if thr == nil {
			t.Fatalf("throughput %v: no throughput figure", bad)
		}
		if !strings.Contains(string(thr.SVG), ">knee") {
			t.Errorf("throughput %v: the other config's knee is not marked", bad)
		}
		for _, want := range []string{"knee of #1 bad at scale 2", "SLO capacity of #1 bad at scale 2"} {
			if !strings.Contains(thr.Caption, want) {
				t.Errorf("throughput %v: caption %q does not say the %q is not marked", bad, thr.Caption, want)
			}
		}
	}
}
