package verify

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// A replay in which the engine refused every request (here a 400 on each
// one after the text-model probes) is not an engine that died: without
// an engine command verify watched no engine, and with one the engine
// still answered its health URL after the run.
func TestNoRequestSucceededIsNotAnEngineDeath(t *testing.T) {
	for _, withEngine := range []bool{false, true} {
		name := map[bool]string{false: "no-engine-cmd", true: "engine-alive"}[withEngine]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("D", dir)
			cfg := refusingReplay(t)
			opt := Options{Candidates: candidates(1), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: cfg,
				Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
			if withEngine {
				opt.Engine = &EngineSpec{Start: `trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`,
					HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 3 * time.Second}
			}
			res, err := Run(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			c := res.Candidates[0]
			if c.Status != StatusReplay || !strings.Contains(c.Detail, "no request succeeded") {
				t.Errorf("status %s (%s): want %s, no request succeeded", c.Status, c.Detail, StatusReplay)
			}
			if res.Incomplete != 1 {
				t.Errorf("incomplete %d, want 1", res.Incomplete)
			}
		})
	}
}

// refusingReplay is the replay configuration of a stub server that
// answers the text-model probes and refuses every request after them
// with a 400; it lives as long as the test.
func refusingReplay(t *testing.T) replay.Config {
	srv := replaytest.New(replaytest.Options{TTFT: time.Millisecond, ITL: time.Millisecond, Status: http.StatusBadRequest,
		Fault: func(n int) replaytest.Fault {
			if n < len(replay.ProbeBytes) {
				return replaytest.OK
			}
			return replaytest.Status
		}})
	t.Cleanup(srv.Close)
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "stub", "SERVESIM_NO_KEY"
	cfg.Timeout = 10 * time.Second
	return cfg
}
