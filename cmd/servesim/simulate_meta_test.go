package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/report"
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

// summary.json and --json name the build, the input by checksum and the
// profile as the simulated traces do, so that summaries alone tell runs
// of other inputs apart.
func TestSimulateSummaryRecordsInputs(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n")
	prof := "../../calibrate/testdata/profile_v1.json"
	out := filepath.Join(dir, "res")
	stdout, err := run(t, "simulate", "--trace", tr, "--profile", prof, "--config", basePlan(t, dir, "p.toml"), "--out", out, "--json")
	if err != nil {
		t.Fatal(err)
	}
	meta, _, err := traces.ReadAll(filepath.Join(out, "p.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	// stdout holds the profile's notes before the JSON
	stdout = stdout[strings.Index(stdout, "[\n  {"):]
	for name, text := range map[string]string{"summary.json": string(data), "--json": stdout} {
		results, err := report.ParseSummary([]byte(text), name)
		if err != nil {
			t.Fatal(err)
		}
		r := results[0]
		if r.ToolVersion != meta.ToolVersion || r.ToolVersion == "" {
			t.Errorf("%s: tool_version %q, want the trace's %q", name, r.ToolVersion, meta.ToolVersion)
		}
		if !maps.Equal(r.InputChecksums, meta.Checksums) || len(r.InputChecksums) != 1 {
			t.Errorf("%s: input checksums %v, want the trace's %v", name, r.InputChecksums, meta.Checksums)
		}
		if r.Profile != prof || r.ProfileSHA256 != meta.Extra["profile_sha256"] {
			t.Errorf("%s: profile %q %q, want %q %q", name, r.Profile, r.ProfileSHA256, prof, meta.Extra["profile_sha256"])
		}
	}
}

// A --catalog changes what a plan runs on (prices, FLOP/s, memory) while
// the plan stays the same: the trace and summary name it by checksum, as
// a sweep's settings do.
func TestSimulateRecordsCatalogChecksum(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n")
	cat := writeFile(t, dir, "cat.toml", "[[hardware]]\nname = \"H100-SXM-80G\"\nprice_per_hour = 9.5\n")
	out := filepath.Join(dir, "res")
	if _, err := run(t, "simulate", "--trace", tr, "--catalog", cat, "--config", basePlan(t, dir, "p.toml"), "--out", out); err != nil {
		t.Fatal(err)
	}
	sum, err := calibrate.FileSHA256(cat)
	if err != nil {
		t.Fatal(err)
	}
	meta, _, err := traces.ReadAll(filepath.Join(out, "p.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if got := meta.Extra["catalog_sha256"]; got != sum {
		t.Errorf("trace: catalog_sha256 = %q, want %s", got, sum)
	}
	if len(meta.Checksums) != 1 {
		t.Errorf("checksums %v, want the input's only", meta.Checksums)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	results, err := report.ParseSummary(data, "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := results[0].CatalogSHA256; got != sum {
		t.Errorf("summary.json: catalog_sha256 = %q, want %s", got, sum)
	}
}

// The embedded default trace is named by checksum as a file given with
// --trace is: a run of the default and one of another trace are told
// apart, and one of the same file is not.
func TestEmbeddedTraceChecksum(t *testing.T) {
	in, err := openTrace("")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	want, err := traces.FileChecksum("../../testdata/azure2023/AzureLLMInferenceTrace_conv.csv") // the same file
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Meta().Checksums; len(got) != 1 || got["AzureLLMInferenceTrace_conv.csv"] != want {
		t.Errorf("embedded trace checksums %v, want AzureLLMInferenceTrace_conv.csv: %s", got, want)
	}
}
