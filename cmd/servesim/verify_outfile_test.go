package main

import (
	"os"
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
