package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/replay/telemetry"
	"github.com/servesim/servesim/verify"
)

// Files renamed into place whose directory was not synced are written: a
// simulation keeps its trace, summary and decisions, prints its results,
// and still reports the error.
func TestSimulateOutDirNotSyncedKeepsOutputs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.csv")
	os.WriteFile(src, []byte("arrival_ns,prompt_tokens,output_tokens\n0,100,200\n1000000,200,20\n"), 0o644)
	cfg := filepath.Join(dir, "cont.toml")
	data, _ := defaults.ReadFile("defaults/4-continuous.toml")
	os.WriteFile(cfg, data, 0o644)
	out := filepath.Join(dir, "res")
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	stdout, err := run(t, "simulate", "--trace", src, "--config", cfg, "--out", out, "--decisions", filepath.Join(dir, "d.jsonl"))
	if !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Errorf("simulate: %v; want ErrDirNotSynced", err)
	}
	for _, path := range []string{filepath.Join(out, "cont.parquet"), filepath.Join(out, "summary.json"), filepath.Join(dir, "d.jsonl")} {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s not written: %v", path, err)
		}
	}
	if !strings.Contains(stdout, "$/1M out") {
		t.Errorf("output lacks the results:\n%s", stdout)
	}
}

// A sweep's results and candidates renamed into place whose directory was
// not synced are written: the sweep prints them and still reports the
// error.
func TestSweepOutDirNotSyncedKeepsResults(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	stdout, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--top", "3", "-q", "--workers", "2")
	if !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Errorf("sweep: %v; want ErrDirNotSynced", err)
	}
	for _, name := range []string{"sweep.parquet", "candidates.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	if !strings.Contains(stdout, "trace: ") {
		t.Errorf("output lacks the results:\n%s", stdout)
	}
}

// A profile renamed into place whose directory was not synced is written:
// calibrate says where, and still reports the error.
func TestCalibrateProfileDirNotSyncedSaysWritten(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	if _, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "q.json")
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	text, err := run(t, "calibrate", "--out", out, "--from-traces", filepath.Join(dir, "p.traces"))
	if !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Errorf("calibrate: %v; want ErrDirNotSynced", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("%s not written: %v", out, err)
	}
	if !strings.Contains(text, "wrote "+out) {
		t.Errorf("output does not say the profile was written:\n%s", text)
	}
}

// verify.json and the traces renamed into place whose directory was not
// synced are written: verify prints its table and where it wrote, and
// still reports the error.
func TestVerifyOutDirNotSyncedPrintsTable(t *testing.T) {
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond})
	defer srv.Close()
	cands, trace := oneCandidate(t, dir)
	out := filepath.Join(dir, "out")
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	text, _, err := runCode(t, "verify", "--candidates", cands, "--trace", trace, "--base-url", srv.BaseURL(), "--model", "stub",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", out)
	if !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Errorf("verify: %v; want ErrDirNotSynced", err)
	}
	if _, err := os.Stat(filepath.Join(out, "verify.json")); err != nil {
		t.Errorf("verify.json not written: %v", err)
	}
	for _, s := range []string{"throughput_out_tok_s", "wrote " + filepath.Join(out, "verify.json")} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
	res, lerr := verify.LoadResult(filepath.Join(out, "verify.json"))
	if lerr != nil {
		t.Fatal(lerr)
	}
	if c := res.Candidates[0]; c.Status != verify.StatusOK {
		t.Errorf("candidate status %s (%s); want ok: its traces are written", c.Status, c.Detail)
	}
}

// Run traces renamed into place whose directory was not synced are
// written: the live runs go on, the profile is fitted and written, and
// calibrate reports the error after.
func TestCalibrateRunTracesDirNotSyncedAreKept(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	text, err := run(t, "calibrate", "--out", out, "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu")
	if !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Errorf("calibrate: %v; want ErrDirNotSynced", err)
	}
	if _, serr := os.Stat(out); serr != nil || !strings.Contains(text, "wrote "+out) {
		t.Errorf("%s not written (%v, %v):\n%s", out, serr, err, text)
	}
}

// cycleGPU is one device whose utilization steps through 0..100% from one
// sample to the next, drawing 100 W + 500 W × utilization.
type cycleGPU struct {
	mu sync.Mutex
	n  int
}

func (g *cycleGPU) Sample() ([]telemetry.DeviceSample, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	u := int32(g.n % 11 * 10)
	g.n++
	s := telemetry.NewDeviceSample(0)
	s.Name, s.UUID, s.SMUtil, s.PowerW = "NVIDIA H100 80GB HBM3", "GPU-aaaa", u, 100+5*float64(u)
	return []telemetry.DeviceSample{s}, nil
}

// GPU samples renamed into place whose directory was not synced are
// whole: calibrate fits power to them, as to samples synced.
func TestCalibrateFitsPowerToSamplesDirNotSynced(t *testing.T) {
	startNVML = func(ctx context.Context, interval time.Duration, path string, _ telemetry.DeviceSelection) (*telemetry.GPURecorder, error) {
		return telemetry.StartGPU(ctx, &cycleGPU{}, telemetry.GPUConfig{Interval: time.Millisecond, Path: path})
	}
	defer func() { startNVML = telemetry.StartNVML }()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	text, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--device", "cpu")
	if !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Errorf("calibrate: %v; want ErrDirNotSynced", err)
	}
	if !strings.Contains(text, "power: idle 100.0 W + 500.0 W × utilization") {
		t.Errorf("output does not fit power to the samples (%v):\n%s", err, text)
	}
}

// A completed verify whose only error is a directory not synced keeps the
// exit its results call for: a candidate not measured still exits 5, the
// sync error named in its message, not hidden behind exit 1.
func TestVerifyOutDirNotSyncedKeepsOutcomeExit(t *testing.T) {
	dir := t.TempDir()
	url, _ := countingServer(t)
	cands, trace := oneCandidate(t, dir)
	out := filepath.Join(dir, "out")
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	text, code, err := runCode(t, "verify", "--candidates", cands, "--trace", trace, "--base-url", url, "--model", "stub",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", out)
	if code != exitIncomplete {
		t.Errorf("exit %d (%v); want %d: the candidate was not measured", code, err, exitIncomplete)
	}
	if !errors.Is(err, atomicfile.ErrDirNotSynced) || !strings.Contains(err.Error(), "could not be measured") {
		t.Errorf("err %v; want it to name the unmeasured candidate and the directory not synced", err)
	}
	if _, serr := os.Stat(filepath.Join(out, "verify.json")); serr != nil || !strings.Contains(text, "wrote "+filepath.Join(out, "verify.json")) {
		t.Errorf("verify.json not written (%v):\n%s", serr, text)
	}
}
