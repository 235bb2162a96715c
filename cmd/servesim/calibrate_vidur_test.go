package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/relpath"
)

const vidurLlama2H100 = "../../calibrate/testdata/vidur/h100/meta-llama/Llama-2-7b-hf/mlp.csv"

// calibrate --vidur-profile writes a prior profile that simulate takes
// like any other, naming it a prior.
func TestCalibrateVidurProfileThenSimulate(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "prior.json")
	out, err := run(t, "calibrate", "--vidur-profile", vidurLlama2H100, "--model", "Llama-2-7B", "--device", "H100-SXM-80G", "--out", prof)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Log(out)
	// The table's 5.600 ms at 1 token beside the roofline's 4.733.
	for _, want := range []string{"261 rows", "5.600", "4.733", "83.208", "wrote " + prof} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// It names the file it came from as a path from its own directory.
	p, err := calibrate.LoadProfile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if l := p.Lineage; len(l) != 1 || l[0].Relation != calibrate.RelationVidur || relpath.Resolve(dir, l[0].Path) != mustAbs(t, vidurLlama2H100) {
		t.Errorf("lineage %+v, want the Vidur file from %s", l, dir)
	}

	tr := filepath.Join(dir, "azure.csv")
	if out, err := run(t, "trace", "import", "--format", "azure", "../../traces/testdata/azure2023_code_head200.csv", tr); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cfg := basePlan(t, dir, "llama2.toml", `name = "Llama-3.1-8B"`, `name = "Llama-2-7B"`,
		`weight_version = "meta-llama/Llama-3.1-8B-Instruct"`, `weight_version = "meta-llama/Llama-2-7b-hf"`,
		"max_model_len = 8192", "max_model_len = 4096")
	out, err = run(t, "simulate", "--trace", tr, "--config", cfg, "--profile", prof)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "profile " + prof + " (not fitted: prior coefficients"; !strings.Contains(out, want) {
		t.Errorf("simulate's output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "warning") {
		t.Errorf("simulate warned of a profile made for its plan:\n%s", out)
	}
}

// A model whose shape the file lacks fails naming the file and the shape,
// and writes nothing.
func TestCalibrateVidurProfileModelNotInFile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "prior.json")
	_, code, err := runCode(t, "calibrate", "--vidur-profile", vidurLlama2H100, "--model", "Llama-3.1-8B", "--device", "H100-SXM-80G", "--out", prof)
	if code != 1 || err == nil || !strings.Contains(err.Error(), vidurLlama2H100) || !strings.Contains(err.Error(), "KVHeads:8") {
		t.Errorf("exit %d, %v; want 1 and an error naming the file and the shape", code, err)
	}
	if _, err := os.Stat(prof); !os.IsNotExist(err) {
		t.Errorf("a failed build left %s (stat: %v)", prof, err)
	}
}

// Flags of live runs and refits make no sense with --vidur-profile: each
// is refused naming both, with exit 2 and no output file; so are missing
// and unknown model and device names, and a precision Vidur did not time.
func TestCalibrateVidurProfileRefusesFlags(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "prior.json")
	base := []string{"calibrate", "--vidur-profile", vidurLlama2H100, "--out", prof}
	named := slices.Concat(base, []string{"--model", "Llama-2-7B", "--device", "H100-SXM-80G"})
	with := func(args []string, extra ...string) []string { return slices.Concat(args, extra) }
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{with(named, "--base-url", "http://127.0.0.1:1/v1"), []string{"--base-url", "--vidur-profile"}},
		{with(named, "--from-traces", dir), []string{"--from-traces", "--vidur-profile"}},
		{with(named, "--held-out", "3"), []string{"--held-out", "--vidur-profile"}},
		{with(base, "--device", "H100-SXM-80G"), []string{"--model"}},
		{with(base, "--model", "Llama-2-7B"), []string{"--device"}},
		{with(base, "--model", "Llama-2-7B", "--device", "H100"), []string{"--device", "H100"}},
		{with(base, "--model", "Llama-7B", "--device", "H100-SXM-80G"), []string{"--model", "Llama-7B"}},
		{with(named, "--precision", "fp9"), []string{"--precision"}},
		{with(named, "--precision", "fp8"), []string{"--precision", "fp16 or bf16"}},
		{with(named, "--tensor-parallel", "3"), []string{"--tensor-parallel 3", "32 heads"}},
	} {
		_, code, err := runCode(t, tc.args...)
		if code != 2 || err == nil {
			t.Errorf("%v: exit %d, %v; want 2", tc.args[5:], code, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q lacks %q", tc.args[5:], err, w)
			}
		}
		if _, err := os.Stat(prof); !os.IsNotExist(err) {
			t.Fatalf("%v left %s (stat: %v)", tc.args[5:], prof, err)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// An --out that names the Vidur file would replace the operator times
// with the prior built from them: it is refused before anything is read,
// as every command refuses an output that is its input.
func TestCalibrateVidurProfileRefusesOutOverItsInput(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "mlp.csv")
	data, err := os.ReadFile(vidurLlama2H100)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(csv, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, code, err := runCode(t, "calibrate", "--vidur-profile", csv, "--model", "Llama-2-7B", "--device", "H100-SXM-80G", "--out", csv)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--out") || !strings.Contains(err.Error(), "--vidur-profile") {
		t.Errorf("exit %d, %v; want 2 and an error naming --out and --vidur-profile", code, err)
	}
	if after, _ := os.ReadFile(csv); string(after) != string(data) {
		t.Errorf("the Vidur file was overwritten: it now starts %q", after[:min(len(after), 40)])
	}
}
