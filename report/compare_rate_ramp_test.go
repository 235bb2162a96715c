package report

import (
	"math"
	"testing"
)

// rampRun is a live run of n slices: the first ramp before its first
// completion, the rest each at rate req/s.
func rampRun(name string, n, ramp int, rate float64) *Run {
	rates := &Rates{ReqPerSec: make([]float64, n), OutTokPerSec: make([]float64, n)}
	for i := ramp; i < n; i++ {
		rates.ReqPerSec[i], rates.OutTokPerSec[i] = rate, 100*rate
	}
	mean := rate * float64(n-ramp) / float64(n)
	nan := math.NaN()
	return &Run{Name: name, Kind: "live", Rates: rates, Metrics: Metrics{Requests: int64(n), Completed: int64(n),
		ReqPerSec: mean, OutTokPerSec: 100 * mean, Goodput: nan, TTFTP50: nan, TTFTP99: nan, TPOTMean: nan,
		TPOTP99: nan, E2EP99: nan, DeviceSeconds: nan, USDPerMOutEst: nan, USDPerMOutBilled: nan}}
}

// The slices before a run's first completion are its ramp-up, there once
// in every run, not chance: two runs steady after it differ by exactly
// their steady rates, and the interval is that change alone.
func TestCompareThroughputRampIsNotResampled(t *testing.T) {
	a, b := rampRun("a", 200, 20, 1), rampRun("b", 200, 20, 1.05)
	for _, c := range compareRuns(t, a, b, 0.1) {
		if c.series != "req/s" && c.series != "output tok/s" {
			continue
		}
		if !known(c.Lo) || c.Hi-c.Lo > 0.001 || math.Abs(c.Rel-0.05) > 1e-9 {
			t.Errorf("%s: change %v, interval %v … %v: want +5%% with an interval of it alone", c.Metric, c.Rel, c.Lo, c.Hi)
		}
	}
}
