package main

import (
	"os"
	"path/filepath"
	"testing"
)

// An output file that names a directory, or lies in one that does not
// exist, is a usage error found before any work, naming the argument or
// flag: the rename that publishes the file cannot replace a directory,
// and a simulation or a recording found that out only once it was done
// ("x.csv: file exists").
func TestOutputFileIsNotADirectory(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	taken := filepath.Join(dir, "taken.csv")
	if err := os.Mkdir(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	taken2 := filepath.Join(dir, "taken2.csv") // apart from what record may leave beside taken
	if err := os.Mkdir(taken2, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no", "such.csv")
	plan := basePlan(t, dir, "p.toml")
	url, n := countingServer(t)
	wantUsageErrors(t, []usageCase{
		{[]string{"trace", "convert", in, taken}, "OUT " + taken},
		{[]string{"trace", "convert", in, missing}, "OUT " + missing},
		{[]string{"trace", "synth", "--requests", "3", taken}, "OUT " + taken},
		{[]string{"trace", "slice", in, taken}, "OUT " + taken},
		{[]string{"trace", "scale", "--time-factor", "2", in, taken}, "OUT " + taken},
		{[]string{"trace", "import", in, taken}, "OUT " + taken},
		{[]string{"simulate", "--trace", in, "--config", plan, "--decisions", taken}, "--decisions " + taken},
		{[]string{"simulate", "--trace", in, "--config", plan, "--decisions", missing}, "--decisions " + missing},
		{[]string{"record", "--trace", in, "--out", taken, "--base-url", url, "--model", "m", "--tokens-per-byte", "0.25"}, taken},
		{[]string{"record", "proxy", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--out", taken2}, taken2},
	})
	if n.Load() != 0 {
		t.Errorf("record sent %d requests before refusing its --out", n.Load())
	}
}
