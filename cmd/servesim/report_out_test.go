package main

import (
	"os"
	"path/filepath"
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
