package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// A calibration that stops part way says how many of the plan's runs were
// measured before the one that failed: its warm-up and slot resets are
// files in the trace directory but not measured runs of the plan.
func TestCalibrateStoppedCountsPlanRuns(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(n int) replaytest.Fault {
		if n >= 60 {
			return replaytest.Status
		}
		return replaytest.OK
	}})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	_, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64")
	if err == nil {
		t.Fatal("no error from an engine that fails every request after the 60th")
	}
	m := regexp.MustCompile(`the (\d+) runs before it are in`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("err = %v, want one saying how many runs were measured", err)
	}
	files, _ := os.ReadDir(filepath.Join(dir, "p.traces"))
	measured := 0
	for _, f := range files {
		if strings.HasSuffix(f.Name(), ".parquet") && !strings.HasSuffix(f.Name(), "-reset.parquet") && !strings.HasSuffix(f.Name(), "-warmup.parquet") {
			measured++
		}
	}
	if n, _ := strconv.Atoi(m[1]); n != measured || measured == 0 {
		t.Errorf("err = %v: %d runs, want the %d measured", err, n, measured)
	}
}

// One measured run before the failure is spoken of in the singular.
func TestCalibrateStoppedAfterOneRunSingular(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(n int) replaytest.Fault {
		if n >= 16 { // after the warm-up, a slot reset and the first run
			return replaytest.Status
		}
		return replaytest.OK
	}})
	defer srv.Close()
	dir := t.TempDir()
	_, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64")
	if err == nil || !strings.Contains(err.Error(), "the 1 run before it is in ") || !strings.Contains(err.Error(), "refits it)") {
		t.Errorf("err = %v, want one saying 'the 1 run before it is in ... refits it'", err)
	}
}
