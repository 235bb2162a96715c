package replay

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// record's summary and `trace stats` (and the Window) of the written file
// agree, warm-up rows left out of both, in every arrival mode.
func TestRecordSummaryMatchesWrittenTrace(t *testing.T) {
	for _, mode := range []struct {
		name    string
		arrival Arrival
		conc    int
	}{{"open", Open, 0}, {"closed", Closed, 3}, {"capped", Open, 2}} {
		t.Run(mode.name, func(t *testing.T) {
			srv := replaytest.New(replaytest.Options{TTFT: 5 * time.Millisecond, ITL: time.Millisecond, Fault: func(n int) replaytest.Fault {
				if n == 5 {
					return replaytest.Status
				}
				return replaytest.OK
			}})
			defer srv.Close()
			dir := t.TempDir()
			in := rows(12, 2*time.Millisecond, 30, 6)
			for _, r := range in[:3] {
				r.Warmup = true
				r.OutputTokens = 20
			}
			cfg := testConfig(srv)
			cfg.Arrival, cfg.Concurrency = mode.arrival, mode.conc
			cfg.Trace = writeTrace(t, dir, "in.jsonl", in)
			cfg.Out = filepath.Join(dir, "out.jsonl")
			cfg.Repeat = 2
			cfg.SLO = traces.SLO{TTFT: time.Second}
			sums, err := Record(t.Context(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, s := range sums {
				path := RunPath(cfg.Out, k+1, 2)
				_, got, err := traces.ReadAll(path)
				if err != nil {
					t.Fatal(err)
				}
				var w traces.Window
				var out int64
				for _, r := range got {
					w.Add(r)
					if !r.Warmup && r.Succeeded() {
						out += int64(r.UsageOutput)
					}
				}
				if s.Wall != w.Duration() || s.OutputTokens != out {
					t.Errorf("run %d: summary wall %v, %d tokens; file %v, %d tokens", k+1, s.Wall, s.OutputTokens, w.Duration(), out)
				}
				f, err := traces.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				st, err := traces.ComputeStats(f, cfg.SLO)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				if st.Warmup != int64(s.Warmup) || st.Observed != int64(s.Sent) || st.Succeeded != int64(s.Succeeded) ||
					st.Failed != int64(s.Failed) || st.Goodput.Met != int64(s.MetSLO) || st.Goodput.Of != int64(s.Sent) {
					t.Errorf("run %d: stats %+v %+v; summary %+v", k+1, st, *st.Goodput, *s)
				}
				if st.Goodput.PerSec == nil || *st.Goodput.PerSec != s.GoodputPerSec {
					t.Errorf("run %d: stats goodput %v, summary %v", k+1, st.Goodput.PerSec, s.GoodputPerSec)
				}
				if s.TTFT.N != s.Succeeded || s.E2E.N != s.Succeeded || st.TTFT.Count != int64(s.Succeeded) {
					t.Errorf("run %d: TTFT n %d (stats %d), E2E n %d, succeeded %d", k+1, s.TTFT.N, st.TTFT.Count, s.E2E.N, s.Succeeded)
				}
				if st.ScheduleLag.Count != int64(s.Lag.N) {
					t.Errorf("run %d: lag n stats %d, summary %d", k+1, st.ScheduleLag.Count, s.Lag.N)
				}
			}
		})
	}
}
