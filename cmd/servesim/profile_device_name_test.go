package main

import "testing"

// A plan names its device as the catalog looks it up (case and
// surrounding spaces aside): a name the catalog resolves to the
// profile's device runs on that device, with the profile or without.
func TestSimulateProfileDeviceNamedAsTheCatalogReadsIt(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n")
	cfg := basePlan(t, dir, "p.toml", `model = "H100-SXM-80G"`, `model = " h100-sxm-80g "`)
	if _, err := run(t, "simulate", "--trace", tr, "--config", cfg); err != nil {
		t.Fatalf("without --profile: %v", err)
	}
	if _, err := run(t, "simulate", "--trace", tr, "--config", cfg, "--profile", "../../calibrate/testdata/profile_v1.json"); err != nil {
		t.Errorf("with the profile measured on H100-SXM-80G: %v", err)
	}
}
