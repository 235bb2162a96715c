package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A candidates file written before batch.prefix_caching was required is
// refused before any candidate runs, with the file, the candidate, the
// missing key and the fix: each candidate would otherwise be recorded as
// not measured, and the run would measure nothing.
func TestParseCandidatesRefusesPlanWithoutPrefixCaching(t *testing.T) {
	data, err := os.ReadFile("testdata/candidates.json")
	if err != nil {
		t.Fatal(err)
	}
	const name = "out/candidates.json"
	if _, err := parseCandidates(data, name); err != nil {
		t.Fatalf("the fixture: %v", err)
	}
	old := strings.ReplaceAll(string(data), `prefix_caching = false\n`, "")
	if old == string(data) {
		t.Fatal("the fixture's plans have no prefix_caching line")
	}
	_, err = parseCandidates([]byte(old), name)
	for _, want := range []string{name + ": candidates[0].plan_toml", "missing required key batch.prefix_caching", "prefix_caching = false", "sweep"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("plans without prefix_caching: err = %v, want it to say %q", err, want)
		}
	}
}

// A sweep's results (Parquet) whose plans lack prefix_caching are
// refused with a fix the user can follow: a Parquet file is not edited by
// hand, so the hint is to run the sweep again, not to edit the plan.
func TestReadCandidatesRefusesResultsWithoutPrefixCaching(t *testing.T) {
	data, err := os.ReadFile("testdata/candidates.json")
	if err != nil {
		t.Fatal(err)
	}
	cf, err := parseCandidates(data, "testdata/candidates.json")
	if err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(cf.Candidates[0].Plan, "prefix_caching = false\n", "")
	if old == cf.Candidates[0].Plan {
		t.Fatal("the fixture's plan has no prefix_caching line")
	}
	row := sweep.Row{Index: 0, Label: "continuous", Outcome: sweep.OutcomeOK, SLOMet: true, Rank: 1, Scale: 1, USDPerMOutEst: 1,
		MaxWaitMs: math.NaN(), RateScale: math.NaN(), PlanTOML: old,
		GPUMemoryUtilization: 0.9, SatScale: math.NaN(), KneeScale: math.NaN()}
	path := filepath.Join(t.TempDir(), "sweep.parquet")
	if err := sweep.WriteFile(path, &sweep.Results{Rows: []sweep.Row{row}}); err != nil {
		t.Fatal(err)
	}
	_, err = readCandidates(path)
	if err == nil {
		t.Fatal("results whose plan lacks prefix_caching were accepted")
	}
	msg := err.Error()
	for _, want := range []string{path + ": the config of index 0: its plan_toml", "missing required key batch.prefix_caching", "run the sweep again", "simulate --sweep"} {
		if !strings.Contains(msg, want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
	}
	if strings.Contains(msg, "to the plan's [batch]") {
		t.Errorf("err = %v: asks for an edit by hand of a Parquet file's plan", err)
	}
}
