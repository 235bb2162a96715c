package verify

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
)

// An interrupt that lands once a run's replay finished ends the candidate
// there: its later runs start no engine, and it reads as canceled with
// the run it measured.
func TestInterruptAfterARunStartsNoFurtherEngine(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	orig := replayRecord
	replayRecord = func(ctx context.Context, cfg replay.Config, log io.Writer) ([]*replay.Summary, error) {
		sums, err := orig(ctx, cfg, log)
		cancel() // interrupted once run 1's replay returned
		return sums, err
	}
	t.Cleanup(func() { replayRecord = orig })
	out := filepath.Join(dir, "out")
	res, _ := Run(ctx, Options{Candidates: candidates(1), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: stubReplay(t),
		Engine: &EngineSpec{Start: `trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`, HealthURL: fakeEngine(t, dir),
			HealthTimeout: 5 * time.Second, StopTimeout: 3 * time.Second},
		Out: out, Tolerances: DefaultTolerances(), Repeat: 2})
	if res == nil || len(res.Candidates) != 1 {
		t.Fatalf("result %+v: want the one candidate", res)
	}
	c := res.Candidates[0]
	if c.Status != StatusCanceled || !strings.Contains(c.Detail, "run 2 of 2") || c.Measured.Completed != 4 {
		t.Errorf("candidate: status %s (%s), %d completed: want canceled at run 2 with run 1's 4 requests", c.Status, c.Detail, c.Measured.Completed)
	}
	if len(c.Repeats) != 2 {
		t.Fatalf("%d repeats: want run 1 and the run 2 the interrupt stopped", len(c.Repeats))
	}
	if r := c.Repeats[1]; r.EngineLog != "" || !strings.Contains(r.Detail, "not begun") {
		t.Errorf("run 2: engine log %q, detail %q: want no engine started after the interrupt, and the run not begun", r.EngineLog, r.Detail)
	}
	logs, _ := filepath.Glob(filepath.Join(out, "*.engine.log"))
	if len(logs) != 1 {
		t.Errorf("engine logs %v: want run 1's only", logs)
	}
	if _, err := os.Stat(filepath.Join(dir, "up")); err == nil {
		t.Error("an engine is still up after the run")
	}
}
