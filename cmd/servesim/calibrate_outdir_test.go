package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// --out names the profile's file. A directory there (verify's --out is
// one) is refused before any live run: it failed only when the profile
// was saved, once every run had been measured.
func TestCalibrateRefusesOutDirectory(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	for _, out := range []string{dir, dir + string(filepath.Separator)} {
		text, code, err := runCode(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
			"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--tokens-per-byte", "1", "--prompt-overhead", "20")
		if code != 2 || err == nil || !strings.Contains(err.Error(), "--out: "+out+" is a directory") {
			t.Errorf("--out %s: exit %d, err %v; want exit 2 naming --out as a directory", out, code, err)
		}
		if n := srv.Count(); n > 0 {
			t.Fatalf("--out %s: %d requests reached the engine before --out was refused\n%s", out, n, text[max(0, len(text)-400):])
		}
	}
}

// --trace-out naming --out's own path would make the profile's path the
// runs' directory: the calibration ran to the end and failed to save. It
// is refused before any live run.
func TestCalibrateRefusesTraceOutAtOut(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "profile.json")
	_, code, err := runCode(t, "calibrate", "--out", out, "--trace-out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--tokens-per-byte", "1", "--prompt-overhead", "20")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--out") || !strings.Contains(err.Error(), "--trace-out") {
		t.Errorf("exit %d, err %v; want exit 2 naming --out and --trace-out", code, err)
	}
	if n := srv.Count(); n > 0 {
		t.Errorf("%d requests reached the engine before --trace-out was refused", n)
	}
}

// --trace-out (by default --out without .json, plus .traces) names a
// directory: a file there is refused before any live run, naming the flag
// and what it wants, not with mkdir's bare error.
func TestCalibrateRefusesTraceOutFile(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "profile.json")
	traceOut := filepath.Join(dir, "profile.traces")
	if err := os.WriteFile(traceOut, []byte("not a directory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, code, err := runCode(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--tokens-per-byte", "1", "--prompt-overhead", "20")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--trace-out: "+traceOut) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("exit %d, err %v; want exit 2 naming --trace-out %s and that it wants a directory", code, err, traceOut)
	}
	if n := srv.Count(); n > 0 {
		t.Errorf("%d requests reached the engine before --trace-out was refused", n)
	}
}

// A dry run stands for the real one: an --out or --trace-out the live run
// would refuse at once is refused by the dry run too, not passed as fine.
func TestCalibrateDryRunChecksOutputs(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "p.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", dir}, "--out: " + dir + " is a directory"},
		{[]string{"--out", filepath.Join(dir, "missing", "p.json")}, "--out: "},
		{[]string{"--out", profile, "--trace-out", profile}, "--trace-out"},
	} {
		args := append([]string{"calibrate", "--dry-run"}, tc.args...)
		text, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming %q", tc.args, code, err, tc.want)
		}
		if strings.Contains(text, "plan quick") {
			t.Errorf("%v: printed the plan before refusing its outputs:\n%s", tc.args, text)
		}
	}
}

// A dry run that passes its checks measures nothing and so writes
// nothing: no runs' directory is left beside the profile's path.
func TestCalibrateDryRunLeavesNoTraceDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, code, err := runCode(t, "calibrate", "--dry-run", "--out", filepath.Join(dir, "p.json")); code != 0 || err != nil {
		t.Fatalf("exit %d, err %v", code, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the dry run left %s in --out's directory", e.Name())
	}
}

// The runs' directory is --out without .json, plus .traces: only .json is
// cut, so two profiles that differ past another dot (cal.v1, cal.v2) keep
// their runs apart, and the second does not replace the first's traces.
func TestCalibrateTraceOutKeepsOtherExtensions(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	for _, name := range []string{"cal.v1", "cal.v2"} {
		if _, err := run(t, "calibrate", "--out", filepath.Join(dir, name), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
			"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu"); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"cal.v1", "cal.v2"} {
		runs, _ := filepath.Glob(filepath.Join(dir, name+".traces", "*.parquet"))
		if len(runs) == 0 {
			t.Errorf("--out %s: no run traces in %s.traces", name, name)
		}
		if _, err := run(t, "calibrate", "--out", filepath.Join(dir, name+".refit.json"), "--from-traces", filepath.Join(dir, name+".traces")); err != nil {
			t.Errorf("refit of --out %s from its own traces: %v", name, err)
		}
	}
}
