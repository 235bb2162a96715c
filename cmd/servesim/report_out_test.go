package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report takes its file as --out, the name every other command gives its
// output, as well as --output and -o: `report --out r.html ...` was
// refused as an undefined flag.
func TestReportTakesOut(t *testing.T) {
	const vj = "../../verify/testdata/verify.json"
	out := filepath.Join(t.TempDir(), "r.html")
	for _, args := range [][]string{{"report", "--out", out, "--verify", vj}, {"report", "--verify", vj, "--out", out}} {
		os.Remove(out)
		if _, err := run(t, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if _, err := os.Stat(out); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// A refused report file is named by the flag as it may have been given:
// `report --out r.txt` is not told of a -o it never wrote.
func TestReportOutErrorNamesOut(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"--out", "-o"} {
		out := filepath.Join(dir, "r.txt")
		_, code, err := runCode(t, "report", flag, out, "--verify", "../../verify/testdata/verify.json")
		if code != 2 || err == nil || !strings.Contains(err.Error(), "report: -o/--out: "+out+": unknown report extension") {
			t.Errorf("report %s %s: exit %d, err %v; want exit 2 naming -o/--out", flag, out, code, err)
		}
	}
}
