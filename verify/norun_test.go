package verify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
)

// A candidate whose replay never ran (Record returned no run, with or
// without an error) is reported as such: its status and why, no measured
// trace, no metrics, and it is left out of the ranking and the output
// comparison, while the remaining candidates still run and are compared
// among themselves. An engine started for it is stopped.
func TestRunCandidateWithNoRun(t *testing.T) {
	for _, tc := range []struct {
		name, detail string
		err          error
		engine       bool
	}{
		{"no-run", "the replay returned no run", nil, false},
		{"error-before-run", "cannot open the output", errors.New("replay: cannot open the output"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("D", dir)
			calls := 0
			orig := replayRecord
			replayRecord = func(ctx context.Context, cfg replay.Config, log io.Writer) ([]*replay.Summary, error) {
				if calls++; calls == 1 {
					return nil, tc.err
				}
				return orig(ctx, cfg, log)
			}
			t.Cleanup(func() { replayRecord = orig })
			out := filepath.Join(dir, "out")
			opt := Options{Candidates: candidates(1, 4, 6), Trace: writeTrace(t, dir, 8, 10*time.Millisecond), Replay: stubReplay(t),
				Out: out, Tolerances: DefaultTolerances()}
			if tc.engine {
				opt.Engine = &EngineSpec{Start: `trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; echo {{.MaxNumSeqs}} >> "$D/starts"; sleep 300 & wait`,
					HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 3 * time.Second}
			}
			res, err := Run(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Candidates) != 3 || calls != 3 {
				t.Fatalf("%d candidates, %d replays: want all 3 run", len(res.Candidates), calls)
			}
			c := res.Candidates[0]
			if c.Status != StatusReplay || !strings.Contains(c.Detail, tc.detail) || c.Pass != nil || len(c.Rows) != 0 {
				t.Errorf("no-run candidate: status %s (%s), pass %v, %d rows: want %s, %q, not measured", c.Status, c.Detail, c.Pass, len(c.Rows), StatusReplay, tc.detail)
			}
			if c.Trace != "" {
				_, statErr := os.Stat(c.Trace)
				t.Errorf("no-run candidate names the measured trace %s (%v): want none, no run wrote one", c.Trace, statErr)
			}
			if c.Measured.Requests != 0 || c.Measured.OutTokPerSec != nil {
				t.Errorf("no-run candidate measured %+v: want nothing", c.Measured)
			}
			for _, c := range res.Candidates[1:] {
				if c.Status != StatusOK || c.Measured.Completed != 8 {
					t.Errorf("%s: status %s (%s), %d completed: want ok, 8", c.Label, c.Status, c.Detail, c.Measured.Completed)
				}
			}
			if res.Incomplete != 1 {
				t.Errorf("incomplete %d, want 1", res.Incomplete)
			}
			if len(res.Ranking.Entries) != 2 || res.Ranking.TauSweep == nil {
				t.Errorf("ranking %+v: want the two measured candidates", res.Ranking)
			}
			if cs := res.Consistency; cs.Reference != "seqs=4" || cs.Compared != 8 || len(cs.PerCandidate) != 1 || cs.PerCandidate[0].Label != "seqs=6" {
				t.Errorf("consistency %+v: want seqs=6 against seqs=4 on 8 requests", cs)
			}
			if tc.engine {
				if starts, _ := os.ReadFile(filepath.Join(dir, "starts")); strings.Count(string(starts), "\n") != 3 {
					t.Errorf("engine starts %q: want one per candidate", starts)
				}
				if _, err := os.Stat(filepath.Join(dir, "up")); err == nil {
					t.Error("an engine was left running")
				}
			}
			var b strings.Builder
			res.WriteTable(&b)
			if !strings.Contains(b.String(), strings.ToUpper(StatusReplay)+": ") || !strings.Contains(b.String(), tc.detail) {
				t.Errorf("table does not report the candidate with no run:\n%s", b.String())
			}
			data, err := json.Marshal(res.RelativeTo(out))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ParseResult(data, "verify.json"); err != nil {
				t.Errorf("verify.json does not read back: %v", err)
			}
		})
	}
}
