package main

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A refit warns of the runs' failed requests as the live calibration did.
func TestCalibrateRefitWarnsOfFailedRequests(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond, Fault: func(n int) replaytest.Fault {
		if n == 40 {
			return replaytest.Status
		}
		return replaytest.OK
	}})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	live, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu", "--reset-slots=false")
	if err != nil {
		t.Fatal(err)
	}
	failed := regexp.MustCompile(`warning: run .* requests failed .*\n`)
	want := failed.FindString(live)
	if want == "" {
		t.Fatalf("live calibration with a failed request, no warning:\n%s", live)
	}
	refit, err := run(t, "calibrate", "--out", filepath.Join(dir, "q.json"), "--from-traces", filepath.Join(dir, "p.traces"))
	if err != nil {
		t.Fatal(err)
	}
	if got := failed.FindString(refit); got != want {
		t.Errorf("refit warns %q, want the live calibration's %q:\n%s", got, want, refit)
	}
}
