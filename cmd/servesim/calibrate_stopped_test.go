package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// A calibration that stops before its first measured run has nothing to
// refit: the warm-up is not measured (the plan counts it apart), so the
// error does not point at a refit, which would find no measured run.
func TestCalibrateStoppedAfterWarmupOffersNoRefit(t *testing.T) {
	// 4 slot-reset requests, the warm-up's 2, then the next slot reset fails.
	srv := replaytest.New(replaytest.Options{Fault: func(n int) replaytest.Fault {
		if n >= 6 {
			return replaytest.Status
		}
		return replaytest.OK
	}})
	defer srv.Close()
	dir := t.TempDir()
	_, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--tokens-per-byte", "1", "--prompt-overhead", "20")
	if err == nil || !strings.Contains(err.Error(), "before run prefill-r1") {
		t.Fatalf("err = %v, want the slot reset before prefill-r1 to fail", err)
	}
	if strings.Contains(err.Error(), "--from-traces") {
		_, rerr := run(t, "calibrate", "--out", filepath.Join(dir, "q.json"), "--from-traces", filepath.Join(dir, "p.traces"))
		t.Errorf("err = %v\nwant no refit offered: nothing was measured (the refit says: %v)", err, rerr)
	}
}
