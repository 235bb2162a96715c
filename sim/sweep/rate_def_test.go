package sweep

import (
	"fmt"
	"testing"

	"github.com/servesim/servesim/traces"
)

// The trace's rate at scale 1 is `trace stats`'s mean rate: warm-up rows
// are sent but left out of every statistic, the rate included.
func TestTraceRateIsTraceStatsRate(t *testing.T) {
	var reqs []traces.Request
	for i := range 6 {
		var r traces.Request
		r.Reset()
		r.ID, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), 100, 10
		r.Arrival = int64(i) * 1e9
		r.Warmup = i < 2 // two warm-up rows at 0 s and 1 s
		reqs = append(reqs, r)
	}
	tr, err := LoadTrace("t", &rowsReader{reqs: reqs})
	if err != nil {
		t.Fatal(err)
	}
	st, err := traces.ComputeStats(&rowsReader{reqs: reqs}, traces.SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if st.MeanRate == nil || tr.Rate != *st.MeanRate || tr.Rate != 1 {
		t.Errorf("sweep rate %v req/s, trace stats %v req/s; want the same (4 measured requests, 3 gaps over 3 s)", tr.Rate, *st.MeanRate)
	}
}
