package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/verify"
)

// A --refit that fails leaves no refitted profile: verify exits non-zero
// and says why, even when every measured metric was within tolerance (here
// none is gated), so that a script does not go on without the profile.
func TestVerifyRefitFailureExitsNonZero(t *testing.T) {
	dir := t.TempDir()
	// Every output in one chunk: no token gaps to recover decode steps
	// from, however the host schedules the stub, so the fit always lacks
	// observations (with one token a chunk, a loaded host let one more
	// step through and the refit fitted).
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond, TokensPerChunk: 1000})
	defer srv.Close()
	cands, tr := oneCandidate(t, dir)
	prof := cpuProfile(t, dir)                   // the candidate's device
	refitOut := filepath.Join(dir, "refit.json") // three requests' steps are too few to fit
	out := filepath.Join(dir, "out")
	text, code, err := runCode(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", srv.BaseURL(), "--model", "stub",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", out,
		"--profile", prof, "--refit", "--refit-out", refitOut,
		"--tol-throughput", "0", "--tol-ttft", "0", "--tol-tpot", "0", "--tol-p99", "0", "--tol-cost", "0")
	if code == 0 || err == nil || !strings.Contains(err.Error(), "refit") {
		t.Errorf("exit %d, err %v: want a non-zero exit naming the refit\n%s", code, err, text)
	}
	res, lerr := verify.LoadResult(filepath.Join(out, "verify.json"))
	if lerr != nil {
		t.Fatal(lerr)
	}
	if _, err := os.Stat(refitOut); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want no refitted profile", refitOut, err)
	}
	if res.ToleranceFailures != 0 || res.Incomplete != 0 || res.Refit == nil || res.Refit.Error == "" {
		t.Errorf("verify.json: %d tolerance failures, %d incomplete, refit %+v: want a failed refit only", res.ToleranceFailures, res.Incomplete, res.Refit)
	}
}

// Every --tol-X flag's help says that 0 reports the metric without gating
// it, as verify does.
func TestVerifyHelpSaysZeroToleranceIsNotGated(t *testing.T) {
	help, err := run(t, "verify", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--tol-throughput", "--tol-ttft", "--tol-tpot", "--tol-p99", "--tol-cost"} {
		i := strings.Index(help, flag+" value")
		if i < 0 {
			t.Fatalf("help lacks %s", flag)
		}
		line, _, _ := strings.Cut(help[i:], "\n")
		if !strings.Contains(line, "0 = reported, not gated") {
			t.Errorf("%s: %q: want it to say 0 = reported, not gated", flag, strings.TrimSpace(line))
		}
	}
}

// A --refit-out that is a directory cannot take the profile: refused
// before any candidate runs, not once every candidate has.
func TestVerifyRefusesRefitOutDirectory(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	out := filepath.Join(dir, "out")
	prof := filepath.Join("..", "..", "calibrate", "testdata", "profile_v1.json")
	text, code, err := runCode(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", out, "--profile", prof, "--refit", "--refit-out", dir)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--refit-out") {
		t.Errorf("exit %d, err %v; want exit 2 naming --refit-out\n%s", code, err, text)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// cpuProfile writes calibrate's test profile, measured on the device of
// oneCandidate's plan, to dir/cpu.json.
func cpuProfile(t *testing.T, dir string) string {
	t.Helper()
	return writeFile(t, dir, "cpu.json", strings.Replace(testProfile(t), `"device": "H100-SXM-80G"`, `"device": "cpu"`, 1))
}

// The default --refit-out is --profile without .json, plus .refit.json:
// only .json is cut, so profiles that differ past another dot (p.v1, p.v2)
// refit into files of their own. A directory at p.v1.refit.json shows
// which path verify chose: it is refused before any candidate runs.
func TestVerifyDefaultRefitOutKeepsOtherExtensions(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	prof := filepath.Join(dir, "p.v1")
	if err := os.Rename(cpuProfile(t, dir), prof); err != nil {
		t.Fatal(err)
	}
	taken := filepath.Join(dir, "p.v1.refit.json")
	if err := os.Mkdir(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	text, code, err := runCode(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", filepath.Join(dir, "out"), "--profile", prof, "--refit")
	if code != 2 || err == nil || !strings.Contains(err.Error(), taken) {
		t.Errorf("exit %d, err %v; want exit 2 naming %s\n%s", code, err, taken, text)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// A failed --refit decides the exit message, and the table leaves the
// count of metrics outside tolerance to that message: it still says how
// many there were.
func TestVerifyRefitFailureCountsToleranceFailures(t *testing.T) {
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond, TokensPerChunk: 1000})
	defer srv.Close()
	cands, tr := oneCandidate(t, dir)
	text, code, err := runCode(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", srv.BaseURL(), "--model", "stub",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", filepath.Join(dir, "out"),
		"--profile", cpuProfile(t, dir), "--refit", "--refit-out", filepath.Join(dir, "refit.json"),
		"--tol-throughput", "1e-9", "--tol-ttft", "1e-9", "--tol-tpot", "1e-9", "--tol-p99", "1e-9", "--tol-cost", "1e-9")
	res, lerr := verify.LoadResult(filepath.Join(dir, "out", "verify.json"))
	if lerr != nil {
		t.Fatal(lerr)
	}
	want := numfmt.Count(res.ToleranceFailures, "metric") + " outside tolerance"
	if code != exitRefitFailed || res.ToleranceFailures == 0 || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("exit %d, err %v; want exit %d naming the refit and %q\n%s", code, err, exitRefitFailed, want, text)
	}
}
