package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
)

// A trace servesim made the rows of (synthesised, or imported from a
// public format) names the build that made them: another build may draw
// other arrivals for the same seed.
func TestTraceSynthAndImportRecordToolVersion(t *testing.T) {
	dir := t.TempDir()
	synth := filepath.Join(dir, "s.parquet")
	if _, err := run(t, "trace", "synth", "--requests", "3", synth); err != nil {
		t.Fatal(err)
	}
	imported := filepath.Join(dir, "i.parquet")
	if _, err := run(t, "trace", "import", "--format", "azure", "../../traces/testdata/azure2023_code_head200.csv", imported); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{synth, imported} {
		meta, _, err := traces.ReadAll(p)
		if err != nil {
			t.Fatal(err)
		}
		if meta.ToolVersion != version {
			t.Errorf("%s: tool_version = %q, want this build's %q", filepath.Base(p), meta.ToolVersion, version)
		}
	}
}

// A sweep's results name the build that simulated them, among the
// settings that shards must share to merge.
func TestSimulateSweepRecordsToolVersion(t *testing.T) {
	dir := t.TempDir()
	if _, err := run(t, "simulate", "--trace", shortTrace(t), "--sweep", smallSweep, "--out", dir, "-q"); err != nil {
		t.Fatal(err)
	}
	res, err := sweep.ReadFile(filepath.Join(dir, "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+res.Meta.Settings+" ", " tool_version="+version+" ") {
		t.Errorf("settings %q lack tool_version=%s", res.Meta.Settings, version)
	}
}
