package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/replay/telemetry"
)

// A run that fails after GPU samples were renamed into place beside the
// runs before it, their directory not synced, names both: the failure,
// and the samples a crash may yet undo.
func TestCalibrateRunFailureKeepsSamplesNotSynced(t *testing.T) {
	startNVML = func(ctx context.Context, interval time.Duration, path string, _ telemetry.DeviceSelection) (*telemetry.GPURecorder, error) {
		return telemetry.StartGPU(ctx, &cycleGPU{}, telemetry.GPUConfig{Interval: time.Millisecond, Path: path})
	}
	defer func() { startNVML = telemetry.StartNVML }()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	// The first decode run's trace cannot replace a directory.
	if err := os.MkdirAll(filepath.Join(dir, "p.traces", "05-decode-c1-p64-r1.parquet", "held"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	_, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu")
	if err == nil || !strings.Contains(err.Error(), "05-decode-c1-p64-r1.parquet") {
		t.Fatalf("calibrate: %v; want the failed run's write named", err)
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	if !strings.Contains(first, "05-decode-c1-p64-r1.parquet") || !strings.Contains(first, "refits it") {
		t.Errorf("calibrate: %v; want the failure and what a refit can use first", err)
	}
	if !strings.Contains(err.Error(), "gpu.csv") {
		t.Errorf("calibrate: %v; want the GPU samples whose directory was not synced named too", err)
	}
}
