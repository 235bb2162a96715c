package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// Candidates are ranked, and their rate scales set, on the trace their
// sweep simulated: replayed on another trace they would be measured at
// other loads than the sweep ranked. verify refuses, as a usage error, a --trace whose
// requests are not the sweep's, naming both files, before any request
// reaches the engine; a candidates file or results file from the sweep's
// own trace passes.
func TestVerifyRefusesAnotherSweepsTrace(t *testing.T) {
	swept := shortTrace(t)
	dir := t.TempDir()
	if _, err := run(t, "simulate", "--trace", swept, "--sweep", smallSweep, "--out", dir, "--top", "3", "--workers", "1", "-q"); err != nil {
		t.Fatal(err)
	}
	in, err := traces.Import(swept, traces.FormatAuto, traces.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.csv")
	_, err = traces.WriteTrace(t.Context(), other, traces.Slice(in, 0, 0, 150))
	in.Close()
	if err != nil {
		t.Fatal(err)
	}
	url, requests := countingServer(t)
	for _, cands := range []string{filepath.Join(dir, "candidates.json"), filepath.Join(dir, "sweep.parquet")} {
		out := filepath.Join(t.TempDir(), "out")
		text, code, err := runCode(t, "verify", "--candidates", cands, "--trace", other, "--base-url", url, "--model", "m",
			"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", out)
		if err == nil || code != 2 || !strings.Contains(err.Error(), cands) || !strings.Contains(err.Error(), other) ||
			!strings.Contains(err.Error(), filepath.Base(swept)) {
			t.Errorf("verify --candidates %s --trace %s: exit %d, err %v; want a usage error (exit 2) naming both files and the sweep's trace\n%s",
				filepath.Base(cands), filepath.Base(other), code, err, text)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("verify --candidates %s created %s", filepath.Base(cands), out)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
	for _, cands := range []string{filepath.Join(dir, "candidates.json"), filepath.Join(dir, "sweep.parquet")} {
		cf, err := readCandidates(cands)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSweepTrace(cf, cands, swept); err != nil {
			t.Errorf("%s on the sweep's own trace: %v", filepath.Base(cands), err)
		}
		// Written before the trace's sha256 was recorded: nothing to check.
		cf.TraceSHA256 = ""
		if err := checkSweepTrace(cf, cands, other); err != nil {
			t.Errorf("%s without trace_sha256: %v", filepath.Base(cands), err)
		}
	}
}
