package verify

import (
	"math"
	"testing"
)

// A rate over runs of different lengths is the runs' total over their
// total measured window, as the simulator's is over its one run's: the
// mean throughput then agrees with the mean output tokens and the mean
// device-seconds beside it, and a short run weighs no more than its time.
func TestMeanMetricsRateIsRatioOfSums(t *testing.T) {
	run := func(completed, tokens int64, seconds float64) Repeat {
		return Repeat{Measured: Metrics{Requests: 10, Completed: completed, OutputTokens: tokens,
			ReqPerSec: sec(float64(completed) / seconds), OutTokPerSec: sec(float64(tokens) / seconds), DeviceSeconds: sec(2 * seconds)}}
	}
	// 1,000 tokens in 10 s, then 1,000 in 40 s: 2,000 tokens in 50 s is
	// 40 tok/s (the mean of 100 and 25 would be 62.5).
	mean, lo, hi := meanMetrics([]Repeat{run(10, 1000, 10), run(10, 1000, 40)})
	checkMeans(t, "total over the total window", []meanCase{
		{MetricThroughput, mean.OutTokPerSec, 40, 25, 100, lo.OutTokPerSec, hi.OutTokPerSec},
		{"req_per_s", mean.ReqPerSec, 0.4, 0.25, 1, lo.ReqPerSec, hi.ReqPerSec},
		{MetricDeviceSeconds, mean.DeviceSeconds, 50, 20, 80, lo.DeviceSeconds, hi.DeviceSeconds},
	})
	if got := *mean.OutTokPerSec * *mean.DeviceSeconds / 2; math.Abs(got-float64(mean.OutputTokens)) > 1e-9 {
		t.Errorf("mean throughput × mean window = %g tokens, want the mean output tokens %d", got, mean.OutputTokens)
	}
}
