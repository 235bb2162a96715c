package verify

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// A run interrupted during a candidate's warm-up is canceled, not an
// engine that died nor a replay that failed: the engine's health probe
// and the warm-up requests both fail only because the context ended.
func TestWarmUpInterruptedIsCanceled(t *testing.T) {
	for _, withEngine := range []bool{false, true} {
		name := map[bool]string{false: "no-engine-cmd", true: "engine"}[withEngine]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("D", dir)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg := cancelingReplay(t, cancel)
			opt := Options{Candidates: candidates(1), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: cfg,
				Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
			if withEngine {
				opt.Engine = &EngineSpec{Start: `trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`,
					HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 3 * time.Second}
			}
			res, err := Run(ctx, opt)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run: %v, want the cancellation", err)
			}
			if c := res.Candidates[0]; c.Status != StatusCanceled {
				t.Errorf("status %s (%s), want %s", c.Status, c.Detail, StatusCanceled)
			}
		})
	}
}

// cancelingReplay is the replay configuration of a stub server that
// cancels the run on the first text-model probe and refuses it.
func cancelingReplay(t *testing.T, cancel context.CancelFunc) replay.Config {
	srv := replaytest.New(replaytest.Options{TTFT: time.Millisecond, ITL: time.Millisecond,
		Fault: func(n int) replaytest.Fault {
			cancel()
			return replaytest.Status
		}})
	t.Cleanup(srv.Close)
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "stub", "SERVESIM_NO_KEY"
	cfg.Timeout = 10 * time.Second
	return cfg
}
