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

// A Markdown report's figure folder that cannot be replaced (a file in its
// place, or one holding what a report did not write) is a usage error
// found before the inputs are read, as a directory at --out is.
func TestReportRefusesFigureFolderUpFront(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a_files", "")
	if err := os.Mkdir(filepath.Join(dir, "b_files"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "b_files"), "notes.txt", "mine")
	const vj = "../../verify/testdata/verify.json"
	for _, c := range []struct{ out, want string }{
		{"a.md", "a_files: not a directory"},
		{"b.md", "holds notes.txt"},
	} {
		out := filepath.Join(dir, c.out)
		_, code, err := runCode(t, "report", "-o", out, "--verify", vj)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "report: -o/--out: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("report -o %s: exit %d, err %v; want exit 2 naming -o/--out and %q", c.out, code, err, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s written beside a refused folder (%v)", c.out, err)
		}
	}
}
