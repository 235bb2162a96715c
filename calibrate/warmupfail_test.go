package calibrate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// A warm-up request the engine refuses is counted as failed in the run's
// progress line, not as ok.
func TestRunPlanLogCountsFailedWarmup(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(n int) replaytest.Fault {
		if n == 0 {
			return replaytest.Status
		}
		return replaytest.OK
	}})
	defer srv.Close()
	plan := &Plan{Runs: []RunSpec{WarmupRun(4095)}}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
	var log bytes.Buffer
	if _, _, err := RunPlan(t.Context(), plan, LiveOptions{Replay: cfg, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "ok 1/2") {
		t.Errorf("progress line %q, want ok 1/2 (the long warm-up request failed)", log.String())
	}
}
