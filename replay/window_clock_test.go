package replay

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// Each run's measured window is placed on the monotonic clock, so that
// telemetry sampled beside the runs can be cut to it: the window lies
// within the Record call, runs follow one another, and its length is Wall.
func TestRecordPlacesEachRunsWindowOnTheClock(t *testing.T) {
	for _, mode := range []struct {
		name    string
		arrival Arrival
		conc    int
	}{{"open", Open, 0}, {"closed", Closed, 2}} {
		t.Run(mode.name, func(t *testing.T) {
			srv := replaytest.New(replaytest.Options{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
			defer srv.Close()
			dir := t.TempDir()
			in := rows(6, 20*time.Millisecond, 30, 6)
			in[0].Warmup = true
			cfg := testConfig(srv)
			cfg.Arrival, cfg.Concurrency = mode.arrival, mode.conc
			cfg.Trace = writeTrace(t, dir, "in.jsonl", in)
			cfg.Out = filepath.Join(dir, "out.jsonl")
			cfg.Repeat = 2
			before := time.Now()
			sums, err := Record(t.Context(), cfg, nil)
			after := time.Now()
			if err != nil {
				t.Fatal(err)
			}
			prev := before
			for _, s := range sums {
				if s.Wall <= 0 || s.WindowTo.Sub(s.WindowFrom) != s.Wall || s.WindowFrom.Before(s.Origin) ||
					s.Origin.Before(prev) || s.WindowTo.After(after) {
					t.Errorf("run %d: origin %v, window %v–%v (wall %v); record ran %v–%v, the run before ended %v",
						s.Run, s.Origin, s.WindowFrom, s.WindowTo, s.Wall, before, after, prev)
				}
				prev = s.WindowTo
			}
		})
	}
}
