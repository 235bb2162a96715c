package verify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A launcher that fails after it set something up (kubectl apply, then a
// rollout that times out; docker compose up -d, then a check that fails)
// exits non-zero before the engine is healthy. What it started may live
// outside its process group, where only the stop command reaches it: the
// stop command runs after a failed start as after a health timeout, and
// the error still names the exit status and the start command's output.
func TestFailedStartRunsTheStopCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	spec := EngineSpec{
		Start:     `echo launched {{.MaxNumSeqs}} > "$D/launched"; echo rollout timed out >&2; exit 3`,
		Stop:      `echo stopped {{.MaxNumSeqs}} > "$D/stopped"`,
		HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second,
	}
	_, err := StartEngine(context.Background(), spec, Knobs{MaxNumSeqs: 4}, filepath.Join(dir, "log"))
	var ee *EngineError
	if !errors.As(err, &ee) || ee.Status != StatusStartFailed {
		t.Fatalf("err = %v, want %s", err, StatusStartFailed)
	}
	if !strings.Contains(ee.Msg, "exit status 3") || !strings.Contains(ee.Msg, "rollout timed out") {
		t.Errorf("detail %q: want the exit status and the start command's output", ee.Msg)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "stopped")); err != nil || string(b) != "stopped 4\n" {
		t.Errorf("stop command after the failed start: %q, %v: want it run with the candidate's knobs", b, err)
	}
}

// An engine that prints its arguments prints the key among them: the log's
// tail that the error (and verify.json) quotes has it masked.
func TestFailedStartLogTailMasksTheKey(t *testing.T) {
	dir := t.TempDir()
	const key = "sk-servesim-ENGINELOG-0123456789"
	t.Setenv("SERVESIM_ENGINE_KEY", key)
	spec := EngineSpec{
		Start:     `echo "args: --api-key $SERVESIM_ENGINE_KEY --max-num-seqs {{.MaxNumSeqs}}" >&2; exit 1`,
		HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second,
		KeyEnv: "SERVESIM_ENGINE_KEY",
	}
	_, err := StartEngine(context.Background(), spec, Knobs{MaxNumSeqs: 4}, filepath.Join(dir, "log"))
	var ee *EngineError
	if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "--max-num-seqs 4") {
		t.Fatalf("err = %v, want a failed start quoting the log", err)
	}
	if strings.Contains(ee.Msg, "ENGINELOG") || !strings.Contains(ee.Msg, "--api-key [redacted]") {
		t.Errorf("detail %q: want the key masked", ee.Msg)
	}
}
