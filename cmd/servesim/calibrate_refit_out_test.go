package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A refit's --out on one of the files it reads is refused before the
// profile replaces the trace it cites, or the GPU samples beside it.
func TestCalibrateRefitRefusesOutOnItsInputs(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	if _, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu"); err != nil {
		t.Fatal(err)
	}
	traceDir := filepath.Join(dir, "p.traces")
	runs, _ := filepath.Glob(filepath.Join(traceDir, "*-prefill-r1.parquet"))
	if len(runs) != 1 {
		t.Fatalf("prefill traces %q, want one", runs)
	}
	gpu := writeFile(t, traceDir, "gpu.csv", "")
	for _, out := range []string{runs[0], gpu} {
		before, _ := os.ReadFile(out)
		_, code, err := runCode(t, "calibrate", "--out", out, "--from-traces", traceDir)
		if want := "--out: " + out + " would overwrite the input --from-traces"; code != 2 || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--out %s: exit %d, %v; want 2 and %q", out, code, err, want)
		}
		if after, _ := os.ReadFile(out); string(after) != string(before) {
			t.Errorf("--out %s: the refit replaced its input", out)
		}
	}
}

// A live calibration's --out among the files its runs write to --trace-out
// would replace one of them with the profile that cites it.
func TestCalibrateRefusesOutAmongItsTraces(t *testing.T) {
	traceDir := t.TempDir()
	for _, name := range []string{"03-prefill-r1.parquet", "gpu.csv"} {
		out := filepath.Join(traceDir, name)
		_, code, err := runCode(t, "calibrate", "--out", out, "--trace-out", traceDir, "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--dry-run")
		if want := "--out: " + out + " is among the files calibrate writes to --trace-out " + traceDir; code != 2 || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--out %s: exit %d, %v; want 2 and %q", out, code, err, want)
		}
	}
	// A profile beside its runs is no trace of them.
	if _, err := run(t, "calibrate", "--out", filepath.Join(traceDir, "p.json"), "--trace-out", traceDir, "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--dry-run"); err != nil {
		t.Errorf("--out p.json in --trace-out: %v", err)
	}
}
