package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report built from a verify.json names it among its inputs, in HTML
// and Markdown alike, as it names every other file it read.
func TestReportListsTheVerifyInput(t *testing.T) {
	const vj = "../../verify/testdata/verify.json"
	for _, name := range []string{"r.html", "r.md"} {
		out := filepath.Join(t.TempDir(), name)
		if _, err := run(t, "report", "--verify", vj, "-o", out); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(out)
		if !strings.Contains(string(data), vj+": verify result") {
			t.Errorf("%s does not list %s among its inputs:\n%.600s", name, vj, data)
		}
	}
}

// A report of one section says so in the singular.
func TestReportCountsOneSection(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	stdout, err := run(t, "report", "--verify", "../../verify/testdata/verify.json", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "wrote " + out + " (1 section)\n"; !strings.Contains(stdout, want) {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
}
