package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// verify.json names its files (the measured and simulated traces the
// report draws CDFs from, ...) from its own directory, so that report
// --verify finds them from any directory, not only the one verify ran in.
func TestVerifyJSONPathsResolveFromItsDirectory(t *testing.T) {
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond})
	defer srv.Close()
	oneCandidate(t, dir)
	t.Chdir(dir)
	if err := os.Mkdir("runs", 0o755); err != nil { // verify makes --out, not its parent
		t.Fatal(err)
	}
	if text, code, err := runCode(t, "verify", "--candidates", "candidates.json", "--trace", "in.csv", "--base-url", srv.BaseURL(), "--model", "stub",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", "runs/v1",
		"--tol-throughput", "0", "--tol-ttft", "0", "--tol-tpot", "0", "--tol-p99", "0", "--tol-cost", "0"); code != 0 {
		t.Fatalf("verify: exit %d, %v\n%s", code, err, text)
	}
	raw, err := os.ReadFile(filepath.Join("runs", "v1", "verify.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Trace, Input string
		Candidates   []struct {
			Trace    string `json:"trace"`
			SimTrace string `json:"sim_trace"`
		}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{v.Trace, v.Input, v.Candidates[0].Trace, v.Candidates[0].SimTrace} {
		if _, err := os.Stat(filepath.Join(dir, "runs", "v1", p)); err != nil {
			t.Errorf("verify.json names %q: not found from its directory: %v", p, err)
		}
	}
	// From another directory, the report draws the CDFs.
	other := filepath.Join(dir, "elsewhere")
	os.Mkdir(other, 0o755)
	t.Chdir(other)
	if text, err := run(t, "report", "--verify", filepath.Join("..", "runs", "v1", "verify.json"), "-o", "r.md"); err != nil {
		t.Fatalf("report: %v\n%s", err, text)
	}
	md, err := os.ReadFile("r.md")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "CDFs not drawn") || !strings.Contains(string(md), "verify-rank01-TTFT") {
		t.Errorf("report from another directory does not draw the CDFs:\n%s", md)
	}
}
