package report

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/servesim/servesim/sim/sweep"
)

// A linear axis's labels read as the values they mark. gonum/plot's
// default labels round the ticks of a narrow range to too few digits:
// over 1.45–1.50 s, where the P99 TTFTs of a sweep's configs gather under
// an SLO of 1.5 s, its ticks at 1.46, 1.48 and 1.5 all read "1.5".
func TestAxisLabelsNameTheirTicks(t *testing.T) {
	p := newPlot("t", "x", "y")
	for _, r := range [][2]float64{{1.45, 1.5}, {1.449, 1.51}, {1.4494, 1.5075}, {14.49, 15.09}, {0, 3400}, {0.0012, 0.0019}, {-2, 2}} {
		for _, ticks := range [][]plot.Tick{p.X.Tick.Marker.Ticks(r[0], r[1]), p.Y.Tick.Marker.Ticks(r[0], r[1])} {
			step, prev := math.Inf(1), math.Inf(-1)
			for _, tk := range ticks {
				if tk.Label != "" {
					step, prev = math.Min(step, tk.Value-prev), tk.Value
				}
			}
			seen := map[string]bool{}
			for _, tk := range ticks {
				if tk.Label == "" {
					continue
				}
				if v, err := strconv.ParseFloat(tk.Label, 64); err != nil || math.Abs(v-tk.Value) > 1e-6*step || seen[tk.Label] {
					t.Errorf("range %v: tick at %v labelled %q", r, tk.Value, tk.Label)
				}
				seen[tk.Label] = true
			}
		}
	}
}

// The sweep's cost-vs-P99 figure, its configs all just within the SLO,
// labels its axis so that their latencies can be read.
func TestParetoLatencyAxisOfASweepAtItsSLO(t *testing.T) {
	sw := &Sweep{Name: "s"}
	for i, p99 := range []float64{1.452, 1.466, 1.471, 1.488, 1.495} {
		sw.Rows = append(sw.Rows, sweep.Row{Index: int64(i), Label: "c", Rank: int64(i + 1), Outcome: sweep.OutcomeOK,
			TTFTP99: p99, USDPerMOutEst: 1 + float64(i), GoodputOutTokPerSecPerDevice: 100, DeviceCount: 1, Replicas: 1})
	}
	blocks, err := ParetoSection{}.Blocks(&Inputs{Sweeps: []*Sweep{sw}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if f, ok := b.(*Figure); ok && strings.HasSuffix(f.Name, "-latency") {
			if n := strings.Count(string(f.SVG), ">1.5</text>"); n > 1 {
				t.Errorf("%s: %d axis labels read 1.5", f.Name, n)
			}
			return
		}
	}
	t.Fatal("no cost-vs-P99 figure")
}
