package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// An engine started with the API key among its arguments (vLLM's
// --api-key) gets it into --engine-args: the profile and every run trace
// record those, with the key masked.
func TestCalibrateEngineArgsMaskTheKey(t *testing.T) {
	const key = "sk-ENGARGS-0123456789"
	t.Setenv("SERVESIM_ENGARGS_KEY", key)
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	text, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_ENGARGS_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu", "--engine", "vllm",
		"--engine-args", "--api-key="+key, "--engine-args", "--max-num-seqs=2")
	if err != nil {
		t.Fatal(err)
	}
	if n := replaytest.CheckNoSecret(t, "calibrate", text, dir, key); n < 3 {
		t.Errorf("scanned %d files, want the profile and its run traces", n)
	}
	profile, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(profile), "--max-num-seqs=2") || !strings.Contains(string(profile), "--api-key=[redacted]") {
		t.Errorf("profile's engine args are not the ones given, key masked:\n%s", profile)
	}
}

// A key given in the base URL (https://TOKEN@host/v1) rather than in
// --api-key-env is as much the engine's key: masked in the engine args too.
func TestCalibrateEngineArgsMaskTheURLKey(t *testing.T) {
	const key = "sk-URLTOKEN-0123456789"
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	base := strings.Replace(srv.BaseURL(), "http://", "http://"+key+"@", 1)
	text, err := run(t, "calibrate", "--out", out, "--base-url", base, "--model", "m", "--api-key-env", "SERVESIM_UNSET_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu", "--engine", "vllm",
		"--engine-args", "--api-key="+key)
	if err != nil {
		t.Fatal(err)
	}
	if n := replaytest.CheckNoSecret(t, "calibrate", text, dir, key); n < 3 {
		t.Errorf("scanned %d files, want the profile and its run traces", n)
	}
}
