package main

import (
	"strings"
	"testing"
)

// A profile calibrated without --device cannot be checked against the
// plan's device: said, rather than taken as the plan's without a word.
func TestSimulateProfileWithoutDeviceWarns(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n")
	prof := writeFile(t, dir, "p.json", strings.Replace(testProfile(t), `"device": "H100-SXM-80G"`, `"device": ""`, 1))
	out, err := run(t, "simulate", "--trace", tr, "--profile", prof, "--config", basePlan(t, dir, "a.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "warning: " + prof + " names no device it was measured on (calibrate --device): not checked against the plans' devices"; strings.Count(out, want) != 1 {
		t.Errorf("output does not say %q once:\n%s", want, out)
	}
}

// A profile with a power fit but no device says both what goes unchecked
// and that its fit is left out, in one warning: the two have one cause.
func TestSimulateProfileWithoutDeviceWarnsOnceOfPowerFit(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n")
	prof := writeFile(t, dir, "p.json", strings.Replace(testProfile(t), `"device": "H100-SXM-80G"`, `"device": ""`, 1))
	out, err := run(t, "simulate", "--trace", tr, "--profile", prof, "--config", basePlan(t, dir, "a.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "names no device"); n != 1 {
		t.Errorf("output names the missing device %d times, want once:\n%s", n, out)
	}
	want := "simulate: warning: " + prof + " names no device it was measured on (calibrate --device): not checked against the plans' devices, and its power fit is left out: the catalog's idle and TDP figures price the energy\n"
	if !strings.Contains(out, want) {
		t.Errorf("output does not say %q:\n%s", want, out)
	}
}
