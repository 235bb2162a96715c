package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A refit measures nothing live: it does not print a live time of 0s, and
// it counts the plan's runs it refits as the live calibration printed
// them, not the warm-up and slot-reset traces beside them.
func TestCalibrateRefitNoLiveTime(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	live, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(live, "live time ") {
		t.Errorf("live calibration without its live time:\n%s", live)
	}
	refit, err := run(t, "calibrate", "--out", filepath.Join(dir, "q.json"), "--from-traces", filepath.Join(dir, "p.traces"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(refit, "live time") {
		t.Errorf("refit prints a live time:\n%s", refit)
	}
	if !strings.Contains(live, "plan quick: 8 runs") || !strings.Contains(refit, "refitting 8 runs from") {
		t.Errorf("live plan of 8 runs, refit says:\n%s", strings.SplitN(refit, "\n", 2)[0])
	}
}
