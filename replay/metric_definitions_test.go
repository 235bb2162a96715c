package replay

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// record's summary of the hand-made run that report's
// TestMetricDefinitionsAgree works out by hand: the same figures.
func TestSummaryMetricDefinitions(t *testing.T) {
	_, rows, err := traces.ReadAll("../traces/testdata/measured_run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(traces.SLO{TTFT: 150 * time.Millisecond})
	for _, r := range rows {
		c.add(r)
	}
	s := c.summary()
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	want := Summary{Sent: 7, Succeeded: 6, Failed: 1, OutputTokens: 19, Wall: 1400 * time.Millisecond, MetSLO: 4,
		TTFT: Latency{N: 6, P50: ms(140), P90: ms(400), P99: ms(400), Mean: ms(190), Max: ms(400)},
		TPOT: Latency{N: 5, P50: ms(200), P90: ms(500), P99: ms(500), Mean: ms(220), Max: ms(500)},
		E2E:  Latency{N: 6, P50: ms(500), P90: ms(1050), P99: ms(1050), Mean: ms(640), Max: ms(1050)}}
	if s.Sent != want.Sent || s.Succeeded != want.Succeeded || s.Failed != want.Failed || s.OutputTokens != want.OutputTokens ||
		s.Wall != want.Wall || s.MetSLO != want.MetSLO || s.TTFT != want.TTFT || s.TPOT != want.TPOT || s.E2E != want.E2E {
		t.Errorf("summary: sent %d, ok %d, failed %d, %d output tokens over %v, %d within the SLO\nTTFT %+v\nTPOT %+v\nE2E  %+v\nwant %+v",
			s.Sent, s.Succeeded, s.Failed, s.OutputTokens, s.Wall, s.MetSLO, s.TTFT, s.TPOT, s.E2E, want)
	}
	for _, r := range []struct {
		what      string
		got, want float64
	}{{"req/s", s.RequestsPerSec, 6 / 1.4}, {"output tok/s", s.OutputTokensPerSec, 19 / 1.4},
		{"goodput req/s", s.GoodputPerSec, 4 / 1.4}, {"goodput tok/s", s.GoodputTokens, 13 / 1.4}} {
		if d := r.got - r.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s %g, want %g", r.what, r.got, r.want)
		}
	}
}
