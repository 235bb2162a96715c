package calibrate

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// A slot-reset request the engine refuses stops the calibration with what
// the engine answered, as a failed run's warning gives it.
func TestRunPlanSlotResetFailureSaysWhy(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Status: 429, Fault: func(n int) replaytest.Fault {
		if n == 1 {
			return replaytest.Status
		}
		return replaytest.OK
	}})
	defer srv.Close()
	plan := &Plan{Runs: []RunSpec{{Name: "d", Kind: KindDecode, Concurrency: 2, Prompts: []int{64}, Outputs: []int{2}, Requests: 2, Repeat: 1}}}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
	_, _, err := RunPlan(t.Context(), plan, LiveOptions{Replay: cfg, ResetSlots: true})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 slot-reset requests failed") || !strings.Contains(err.Error(), "429") {
		t.Fatalf("err = %v, want one saying a slot-reset request failed with 429", err)
	}
}
