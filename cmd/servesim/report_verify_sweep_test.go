package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A report of a sweep's results with a verify.json of another sweep's
// candidates (a later sweep into the same OUT, say) would show the
// verified configs as that sweep's best measured live: it says so, naming
// both files, and writes the report. A verify.json of these results, or
// one written before it recorded its sweep, is not noted.
func TestReportNotesVerifyOfAnotherSweep(t *testing.T) {
	dir := t.TempDir()
	sw := filepath.Join(dir, "sweep.parquet")
	fakeSweep(t, sw)
	res, err := sweep.ReadFile(sw)
	if err != nil {
		t.Fatal(err)
	}
	res.Meta.SpecSHA256, res.Meta.TraceSHA256 = strings.Repeat("a", 64), strings.Repeat("b", 64)
	if err := sweep.WriteFile(sw, res); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile("../../verify/testdata/verify.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, spec, trace string
		noted             bool
	}{
		{"other-spec", strings.Repeat("c", 64), strings.Repeat("b", 64), true},
		{"other-trace", strings.Repeat("a", 64), strings.Repeat("c", 64), true},
		{"same", strings.Repeat("a", 64), strings.Repeat("b", 64), false},
		{"unrecorded", "", "", false},
	} {
		text := strings.Replace(string(base), `"spec_sha256": ""`, `"spec_sha256": "`+c.spec+`"`, 1)
		text = strings.Replace(text, `"sweep_trace_sha256": ""`, `"sweep_trace_sha256": "`+c.trace+`"`, 1)
		vj := writeFile(t, dir, c.name+".json", text)
		out, code, err := runCode(t, "report", sw, "--verify", vj, "-o", filepath.Join(dir, c.name+".html"))
		if code != 0 {
			t.Fatalf("%s: exit %d (%v)\n%s", c.name, code, err, out)
		}
		noted := strings.Contains(out, "report: note: "+vj) && strings.Contains(out, sw)
		if noted != c.noted {
			t.Errorf("%s: noted %v, want %v\n%s", c.name, noted, c.noted, out)
		}
	}
}
