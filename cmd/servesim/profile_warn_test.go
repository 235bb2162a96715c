package main

import (
	"strings"
	"testing"
)

// Each difference between the profile and the plans is said once: a
// precision the profile does not share was said again beside every other
// difference (here each plan's tensor-parallel degree), once per plan.
func TestSimulateProfileWarnsOncePerDifference(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n")
	fp8 := func(name, count string) string {
		return basePlan(t, dir, name, `precision = "bf16"`, `precision = "fp8"`, "count = 1", "count = "+count)
	}
	out, err := run(t, "simulate", "--trace", tr, "--profile", "../../calibrate/testdata/profile_v1.json",
		"--config", fp8("tp1.toml", "1"), "--config", fp8("tp2.toml", "2"), "--config", fp8("tp4.toml", "4"))
	if err != nil {
		t.Fatal(err)
	}
	for _, diff := range []string{"precision bf16, the plan fp8", "tensor parallelism 1, the plan 2 devices", "tensor parallelism 1, the plan 4 devices"} {
		if n := strings.Count(out, diff); n != 1 {
			t.Errorf("%q said %d times, want once:\n%s", diff, n, out)
		}
	}
}
