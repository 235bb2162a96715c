package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A live calibration sends the API key to a server that requires it and
// writes it nowhere: not in the profile, the run traces or the output,
// nor in a refit from those traces.
func TestCalibrateWritesNoAPIKey(t *testing.T) {
	const key = "sk-servesim-CALIBLEAK-91e4"
	t.Setenv("SERVESIM_CALIB_KEY", key)
	srv := replaytest.New(replaytest.Options{APIKey: key, TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	live, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m",
		"--api-key-env", "SERVESIM_CALIB_KEY", "--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu")
	if err != nil {
		t.Fatalf("calibrate: %v\n%s", err, live)
	}
	refit, err := run(t, "calibrate", "--out", filepath.Join(dir, "q.json"), "--from-traces", filepath.Join(dir, "p.traces"))
	if err != nil {
		t.Fatalf("refit: %v\n%s", err, refit)
	}
	if n := replaytest.CheckNoSecret(t, "calibrate", live+refit, dir, "CALIBLEAK"); n < 4 {
		t.Errorf("only %d files written", n)
	}
}
