package verify

import (
	"math"
	"testing"
)

// A figure per output token over runs of different lengths is the runs'
// total over their total tokens, as the simulator's is over its one run:
// the mean of the runs' ratios would weigh a short run as much as a long
// one. The range stays the runs' own.
func TestMeanMetricsPerTokenIsRatioOfSums(t *testing.T) {
	run := func(tokens int64, joules, usd float64) Repeat {
		perTok := func(v float64) *float64 { return sec(v / float64(tokens)) }
		perM := func(v float64) *float64 { return sec(v / float64(tokens) * 1e6) }
		return Repeat{Measured: Metrics{Requests: 4, Completed: 4, OutputTokens: tokens,
			JPerOutTok: perTok(joules), USDPerMOut: perM(usd), USDPerMOutHardware: perM(usd / 2)}}
	}
	// 1,000 J over 100 tokens, then 600 J over 300: 1,600 J over 400
	// tokens is 4 J/token (the mean of 10 and 2 would be 6).
	mean, lo, hi := meanMetrics([]Repeat{run(100, 1000, 0.01), run(300, 600, 0.006)})
	checkMeans(t, "total over total tokens", []meanCase{
		{MetricEnergy, mean.JPerOutTok, 4, 2, 10, lo.JPerOutTok, hi.JPerOutTok},
		{MetricCost, mean.USDPerMOut, 40, 20, 100, lo.USDPerMOut, hi.USDPerMOut},
		{"usd_per_m_out_hardware", mean.USDPerMOutHardware, 20, 10, 50, lo.USDPerMOutHardware, hi.USDPerMOutHardware},
	})
}

// meanCase is one metric's mean over repeats and its range, beside the
// values wanted.
type meanCase struct {
	name         string
	got          *float64
	want, lo, hi float64
	gotLo, gotHi *float64
}

// checkMeans checks each case's mean, computed as why says, and its
// range, which stays the runs' own.
func checkMeans(t *testing.T, why string, cases []meanCase) {
	t.Helper()
	for _, c := range cases {
		if c.got == nil || math.Abs(*c.got-c.want) > 1e-9*c.want {
			t.Errorf("%s: mean %s, want %g (%s)", c.name, fmtOpt(c.got), c.want, why)
		}
		if c.gotLo == nil || c.gotHi == nil || math.Abs(*c.gotLo-c.lo) > 1e-9*c.lo || math.Abs(*c.gotHi-c.hi) > 1e-9*c.hi {
			t.Errorf("%s: range %s–%s, want the runs' own %g–%g", c.name, fmtOpt(c.gotLo), fmtOpt(c.gotHi), c.lo, c.hi)
		}
	}
}
