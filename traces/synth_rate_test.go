package traces

import (
	"math"
	"testing"
)

// A constant process at Rate puts n rows over (n-1)/Rate seconds: the
// rate trace stats reads back is the one asked for.
func TestSynthConstantRateIsStatsRate(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests, c.Warmup = 10, 3
	c.Arrival = ArrivalSpec{Kind: ArrivalConstant, Rate: 2}
	_, rows := synthAll(t, c)
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if s.MeanRate == nil || math.Abs(*s.MeanRate-2) > 1e-9 {
		t.Errorf("mean rate %v over %v s (%d requests), want 2 req/s as synthesised", *s.MeanRate, s.SpanSeconds, s.Requests)
	}
}
