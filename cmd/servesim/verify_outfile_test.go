package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// An --out that is a file is a usage error, as simulate's is: refused
// before any candidate runs, with exit status 2 and the flag named.
func TestVerifyOutThatIsAFileIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond})
	defer srv.Close()
	oneCandidate(t, dir)
	t.Chdir(dir)
	if err := os.WriteFile("taken", []byte("a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, code, err := runCode(t, "verify", "--candidates", "candidates.json", "--trace", "in.csv", "--base-url", srv.BaseURL(), "--model", "stub",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", "taken")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--out: taken: want a directory, not a file") {
		t.Fatalf("verify --out FILE: exit %d, %v; want exit 2 naming --out\n%s", code, err, text)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("verify --out FILE sent %d requests before refusing it; want none", n)
	}
}

// A verify.json that cannot be written, after every candidate has run,
// still leaves the results seen: the table is printed, and the error
// says verify and names verify.json. With --json, the results are
// printed as JSON before the same error.
func TestVerifyUnwritableResultStillPrintsTable(t *testing.T) {
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond})
	defer srv.Close()
	oneCandidate(t, dir)
	t.Chdir(dir)
	// A directory where verify.json would be renamed into place.
	if err := os.MkdirAll(filepath.Join("out", "verify.json", "held"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"verify", "--candidates", "candidates.json", "--trace", "in.csv", "--base-url", srv.BaseURL(), "--model", "stub",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", "out"}
	for _, tc := range []struct {
		name  string
		extra []string
		shown string
	}{
		{"table", nil, "throughput_out_tok_s"},
		{"json", []string{"--json"}, `"candidates": [`},
	} {
		text, code, err := runCode(t, append(args, tc.extra...)...)
		if err == nil || code == 0 || !strings.HasPrefix(err.Error(), "verify: ") || !strings.Contains(err.Error(), "verify.json") {
			t.Errorf("%s: exit %d, %v; want an error starting verify: that names verify.json", tc.name, code, err)
		}
		if !strings.Contains(text, tc.shown) {
			t.Errorf("%s: output lacks %q: the results of the candidates that ran are shown nowhere\n%s", tc.name, tc.shown, text)
		}
		if strings.Contains(text, "wrote ") {
			t.Errorf("%s: output claims a file was written:\n%s", tc.name, text)
		}
	}
}
