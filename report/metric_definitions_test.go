package report

import (
	"math"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/traces"
)

// measuredRun is a hand-made run of 7 requests: the first failed (its send
// still opens the window at 0), one produced a single token (no TPOT), and
// the last token came at 1.4 s. Its figures, worked out by hand:
// successes 6, output tokens 19; TTFT 50 100 140 150 300 400 ms (P50 140
// by nearest rank, 145 interpolated); TPOT 100 100 200 200 500 ms; E2E 140
// 400 500 750 1000 1050 ms; 4 within ttft=150ms. replay's summary test
// reads it too.
const measuredRun = "../traces/testdata/measured_run.jsonl"

// report, compare, trace stats and calibrate give one run the same
// figures: nearest-rank percentiles of the successes, TPOT without the
// single-token one, rates over the first send to the last token.
func TestMetricDefinitionsAgree(t *testing.T) {
	slo := traces.SLO{TTFT: 150 * time.Millisecond}
	run, err := TraceRun(t.Context(), measuredRun, slo)
	if err != nil {
		t.Fatal(err)
	}
	m := run.Metrics
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"completed", float64(m.Completed), 6}, {"failed", float64(m.Failed), 1}, {"output tokens", float64(m.OutputTokens), 19},
		{"req/s", m.ReqPerSec, 6 / 1.4}, {"output tok/s", m.OutTokPerSec, 19 / 1.4}, {"goodput req/s", m.Goodput, 4 / 1.4},
		{"TTFT P50", m.TTFTP50, 0.14}, {"TTFT P99", m.TTFTP99, 0.4},
		{"TPOT mean", m.TPOTMean, 0.22}, {"TPOT P99", m.TPOTP99, 0.5}, {"E2E P99", m.E2EP99, 1.05},
	} {
		if !near(c.got, c.want) {
			t.Errorf("report %s = %g, want %g", c.what, c.got, c.want)
		}
	}

	in, err := traces.Open(measuredRun)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	st, err := traces.ComputeStats(in, slo)
	if err != nil {
		t.Fatal(err)
	}
	// trace stats keeps latencies in a sketch: percentiles within 0.5%.
	within := func(got, want float64) bool { return math.Abs(got-want) <= 0.005*want }
	if st.Succeeded != 6 || st.Failed != 1 || st.TPOT.Count != 5 || !near(st.TTFT.Mean, 190) || !near(st.TPOT.Mean, 220) ||
		!within(st.TTFT.P50, 140) || !within(st.TTFT.P99, 400) || !within(st.TPOT.P99, 500) || !within(st.E2E.P99, 1050) {
		t.Errorf("trace stats: %d ok, %d failed, TTFT %+v, TPOT %+v, E2E %+v; want those of report", st.Succeeded, st.Failed, *st.TTFT, *st.TPOT, *st.E2E)
	}
	if tp := st.Throughput; tp == nil || tp.RequestsPerSec == nil || tp.OutputTokensPerSec == nil ||
		!near(*tp.RequestsPerSec, m.ReqPerSec) || !near(*tp.OutputTokensPerSec, m.OutTokPerSec) {
		t.Errorf("trace stats throughput %+v, want %g req/s, %g output tok/s", tp, m.ReqPerSec, m.OutTokPerSec)
	}
	if g := st.Goodput; g == nil || g.Met != 4 || g.PerSec == nil || !near(*g.PerSec, m.Goodput) {
		t.Errorf("trace stats goodput %+v, want 4 met, %g/s", g, m.Goodput)
	}

	_, rows, err := traces.ReadAll(measuredRun)
	if err != nil {
		t.Fatal(err)
	}
	s := calibrate.Summarize(rows)
	if s.Succeeded != 6 || s.Failed != 1 || !near(s.RequestsPerSec, m.ReqPerSec) || !near(s.OutputTokensPerSec, m.OutTokPerSec) ||
		s.TTFT.Mean != 190*time.Millisecond || s.TPOT.Mean != 220*time.Millisecond {
		t.Errorf("calibrate: %d ok, %d failed, %g req/s, %g output tok/s, mean TTFT %v, TPOT %v; want those of report",
			s.Succeeded, s.Failed, s.RequestsPerSec, s.OutputTokensPerSec, s.TTFT.Mean, s.TPOT.Mean)
	}
}
