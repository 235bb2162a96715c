package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// The captions are the figures' alt text: where the load axis turns
// logarithmic (scales a factor of 8 or more apart, ticked at powers of
// two) they say so, as they do for a log latency axis; a narrower
// load range keeps a linear axis and says nothing.
func TestLoadCaptionsNameLogLoadAxis(t *testing.T) {
	for _, tc := range []struct {
		scales []float64
		log    bool
	}{{[]float64{1, 2, 4, 8, 16}, true}, {[]float64{1, 1.5, 2, 3}, false}} {
		var curve []sweep.CurvePoint
		for i, s := range tc.scales {
			curve = append(curve, sweep.CurvePoint{Scale: s, OutTokPerSec: 100 * s, TTFTP99: 0.1 * float64(i+1)})
		}
		r := &sweep.Row{Rank: 1, Label: "c", Outcome: sweep.OutcomeOK, Scale: tc.scales[1], KneeScale: tc.scales[2], Curve: curve}
		blocks, err := loadFigures("load", "s", []*sweep.Row{r})
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) != 2 {
			t.Fatalf("%d load figures, want the throughput and the P99 TTFT", len(blocks))
		}
		for _, b := range blocks {
			f := b.(*Figure)
			if got := strings.Contains(f.Caption, "log load axis"); got != tc.log {
				t.Errorf("scales %v: %s caption %q names a log load axis: %v, want %v", tc.scales, f.Name, f.Caption, got, tc.log)
			}
		}
	}
}
