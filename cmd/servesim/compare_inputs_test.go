package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// Runs fed different input traces do not compare: compare says so above
// the table. Another model is a config compared, and no warning.
func TestCompareWarnsOfDifferentInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, model, file, sum string) string {
		path := filepath.Join(dir, name)
		liveTrace(t, path, 20, 0, 200, 1200)
		r, err := traces.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var reqs []*traces.Request
		for r.Next() {
			q := *r.At()
			reqs = append(reqs, &q)
		}
		meta := r.Meta()
		r.Close()
		meta.Model = model
		meta.SetChecksum(file, sum)
		if err := traces.WriteAll(path, meta, reqs); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := write("base.parquet", "llama-8b", "input.jsonl", "sha256:aa")
	same := write("same.parquet", "llama-8b", "input.jsonl", "sha256:aa")
	renamed := write("renamed.parquet", "llama-8b", "moved.jsonl", "sha256:aa")
	model := write("model.parquet", "qwen-7b", "input.jsonl", "sha256:aa")
	input := write("input.parquet", "llama-8b", "input.jsonl", "sha256:bb")
	for _, b := range []string{same, renamed, model} {
		if out, _ := compare(t, base, b); strings.Contains(out, "warning") {
			t.Errorf("%s: same input: want no warning, got\n%s", b, out)
		}
	}
	if out, _ := compare(t, base, input); !strings.Contains(out, "warning: A and B were fed different input traces") {
		t.Errorf("want a warning that the inputs differ, got\n%s", out)
	}
}

// A summary.json alone names its inputs by checksum: compare warns of
// summaries of different traces without the plans' traces beside them.
func TestCompareWarnsOfDifferentInputsInSummaries(t *testing.T) {
	dir := t.TempDir()
	plan := basePlan(t, dir, "p.toml")
	summary := func(name, csv string) string {
		tr := writeFile(t, dir, name+".csv", csv)
		out := filepath.Join(dir, name)
		if _, err := run(t, "simulate", "--trace", tr, "--config", plan, "--out", out); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(out, "p.parquet")); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(out, "summary.json")
	}
	base := summary("base", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n")
	same := summary("same", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n")
	other := summary("other", "arrival_ns,prompt_tokens,output_tokens\n0,100,11\n")
	if out, _ := compare(t, base, same); strings.Contains(out, "warning") {
		t.Errorf("same input: want no warning, got\n%s", out)
	}
	if out, _ := compare(t, base, other); !strings.Contains(out, "warning: A and B were fed different input traces") {
		t.Errorf("want a warning that the inputs differ, got\n%s", out)
	}
}

// A public trace and its conversion to servesim's format hold the same
// requests: runs on the two compare without a warning. A slice of the
// conversion is the same file made into another workload and still warns.
func TestCompareConvertedTraceIsSameInput(t *testing.T) {
	dir := t.TempDir()
	plan := basePlan(t, dir, "p.toml")
	csv := writeFile(t, dir, "in.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,100,10\n2023-11-16 18:15:47.0000000,120,12\n2023-11-16 18:15:48.0000000,90,9\n")
	conv := filepath.Join(dir, "in.parquet")
	if _, err := run(t, "trace", "import", "--format", "azure", csv, conv); err != nil {
		t.Fatal(err)
	}
	sliced := filepath.Join(dir, "slice.parquet")
	if _, err := run(t, "trace", "slice", "--head", "2", conv, sliced); err != nil {
		t.Fatal(err)
	}
	summary := func(name, tr string) string {
		out := filepath.Join(dir, name)
		if _, err := run(t, "simulate", "--trace", tr, "--config", plan, "--out", out); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(out, "summary.json")
	}
	base, converted, slice := summary("csv", csv), summary("conv", conv), summary("slice", sliced)
	if out, _ := compare(t, base, converted); strings.Contains(out, "warning") {
		t.Errorf("a trace and its conversion: want no warning, got\n%s", out)
	}
	if out, _ := compare(t, base, slice); !strings.Contains(out, "warning: A and B were fed the same input files made into other workloads") || !strings.Contains(out, "slice=") {
		t.Errorf("a trace and a slice of it: want a warning that the workloads differ, got\n%s", out)
	}
}

// One file imported with other options (--spread) is another workload
// though its checksum is the same: compare warns, from the traces and from
// the summaries alone. Imported alike, it compares without a warning.
func TestCompareWarnsOfOneFileImportedDifferently(t *testing.T) {
	dir := t.TempDir()
	plan := basePlan(t, dir, "p.toml")
	csv := writeFile(t, dir, "in.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,100,10\n2023-11-16 18:15:46.6805900,120,12\n2023-11-16 18:15:48.0000000,90,9\n")
	simulate := func(name string, importArgs ...string) string {
		tr := filepath.Join(dir, name+".parquet")
		args := append(append([]string{"trace", "import", "--format", "azure"}, importArgs...), csv, tr)
		if _, err := run(t, args...); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		if _, err := run(t, "simulate", "--trace", tr, "--config", plan, "--out", out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	plain, again, spread := simulate("plain"), simulate("again"), simulate("spread", "--spread", "1s")
	if out, _ := compare(t, plain, again); strings.Contains(out, "warning") {
		t.Errorf("one file imported alike: want no warning, got\n%s", out)
	}
	if out, _ := compare(t, plain, spread); !strings.Contains(out, "warning: A and B were fed") || !strings.Contains(out, "spread_ns") {
		t.Errorf("one file imported with --spread and without: want a warning naming spread_ns, got\n%s", out)
	}
	// the summaries alone
	for _, d := range []string{plain, spread} {
		if err := os.Remove(filepath.Join(d, "p.parquet")); err != nil {
			t.Fatal(err)
		}
	}
	if out, _ := compare(t, filepath.Join(plain, "summary.json"), filepath.Join(spread, "summary.json")); !strings.Contains(out, "spread_ns") {
		t.Errorf("summaries of one file imported with --spread and without: want a warning naming spread_ns, got\n%s", out)
	}
}

// One run given where two are wanted is counted in the singular.
func TestCompareCountsOneArgument(t *testing.T) {
	_, code, err := runCode(t, "compare", "a.parquet")
	if code != 2 || err == nil || err.Error() != "compare: want two runs, A and B, got 1 argument" {
		t.Errorf("exit %d, error %v; want 2 and \"got 1 argument\"", code, err)
	}
}
