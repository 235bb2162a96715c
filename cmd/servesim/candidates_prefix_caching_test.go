package main

import (
	"os"
	"strings"
	"testing"
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
