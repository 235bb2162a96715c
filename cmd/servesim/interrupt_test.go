package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// An interrupt (the context main cancels on SIGINT or SIGTERM) stops
// sweep merge and report as it stops every other verb: an error, not a
// merged file or report written as if nothing had happened.
func TestMergeAndReportStopWhenInterrupted(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	for _, s := range []string{"0/2", "1/2"} {
		if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--shard", s, "-q"); err != nil {
			t.Fatal(err)
		}
	}
	shard0, shard1 := filepath.Join(dir, "sweep-shard-0-of-2.parquet"), filepath.Join(dir, "sweep-shard-1-of-2.parquet")
	for _, tc := range []struct {
		out  string
		args []string
	}{
		{filepath.Join(dir, "merged.parquet"), []string{"sweep", "merge", filepath.Join(dir, "merged.parquet"), shard0, shard1}},
		{filepath.Join(dir, "report.html"), []string{"report", "-o", filepath.Join(dir, "report.html"), shard0}},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		app := newApp()
		var buf bytes.Buffer
		app.Writer, app.ErrWriter = &buf, &buf
		err := app.RunContext(ctx, append([]string{"servesim"}, tc.args...))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v: err = %v, want context.Canceled", tc.args[:2], err)
		}
		if _, err := os.Stat(tc.out); !os.IsNotExist(err) {
			t.Errorf("%v: an interrupted run wrote %s", tc.args[:2], tc.out)
		}
	}
}

// An interrupted simulate, a sweep or not, leaves no --out directory it
// created for its results.
func TestSweepInterruptedLeavesNoOut(t *testing.T) {
	tr := shortTrace(t)
	out := filepath.Join(t.TempDir(), "res")
	for _, args := range [][]string{
		{"simulate", "--trace", tr, "--sweep", smallSweep, "--out", out, "-q"},
		{"simulate", "--trace", tr, "--out", out},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		app := newApp()
		var buf bytes.Buffer
		app.Writer, app.ErrWriter = &buf, &buf
		err := app.RunContext(ctx, append([]string{"servesim"}, args...))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%v: err = %v, want context.Canceled", args, err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: the interrupted run left %s", args, out)
		}
	}
}

// An interrupted refit writes no profile: it fails as an interrupted live
// calibration does.
func TestCalibrateRefitStopsWhenInterrupted(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	if _, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "q.json")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	app := newApp()
	var buf bytes.Buffer
	app.Writer, app.ErrWriter = &buf, &buf
	err := app.RunContext(ctx, []string{"servesim", "calibrate", "--out", out, "--from-traces", filepath.Join(dir, "p.traces")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an interrupted refit wrote %s", out)
	}
}

// An interrupt before or while report or compare reads a trace ends on
// the verb's one interrupted line, and report writes nothing.
func TestReportAndCompareInterruptedWhileLoading(t *testing.T) {
	dir := t.TempDir()
	tr, out := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "report.html")
	liveTrace(t, tr, 100, 0, 200, 1200)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "-o", out, tr}, "report: interrupted, " + out + " not written"},
		{[]string{"compare", tr, tr}, "compare: interrupted reading " + tr},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		app := newApp()
		var buf bytes.Buffer
		app.Writer, app.ErrWriter = &buf, &buf
		err := app.RunContext(ctx, append([]string{"servesim"}, tc.args...))
		if !errors.Is(err, context.Canceled) || errorLine(app, err) != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.args[0], err, tc.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an interrupted report wrote %s", out)
	}
}
