package main

import (
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/traces"
)

// A simulated trace names the profile its step times came from by path
// and checksum: a profile refitted in place keeps its path, and two
// traces from different fits must not look alike.
func TestSimulateRecordsProfileChecksum(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n")
	prof := "../../calibrate/testdata/profile_v1.json"
	out := filepath.Join(dir, "res")
	if _, err := run(t, "simulate", "--trace", tr, "--profile", prof, "--config", basePlan(t, dir, "p.toml"), "--out", out); err != nil {
		t.Fatal(err)
	}
	meta, _, err := traces.ReadAll(filepath.Join(out, "p.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := calibrate.FileSHA256(prof)
	if err != nil {
		t.Fatal(err)
	}
	if got := meta.Extra["profile_sha256"]; got != sum {
		t.Errorf("profile_sha256 = %q, want %s", got, sum)
	}
	// The input checksums say which workload ran; a profile is not one.
	if len(meta.Checksums) != 1 || meta.Checksums["in.csv"] == "" {
		t.Errorf("checksums %v, want the input's only", meta.Checksums)
	}
	if got := meta.Extra["profile"]; got != prof {
		t.Errorf("profile = %q, want %q", got, prof)
	}
}
