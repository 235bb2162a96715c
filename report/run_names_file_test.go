package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A simulate --out folder and its plan's trace given beside it are two
// runs of one name: each is named by the file it was read from (the
// summary, the trace), not numbered as if it came from one file twice.
func TestRunsOfOneNameAreNamedByTheirFile(t *testing.T) {
	data, err := os.ReadFile("testdata/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(sum, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tr := oneRequestTrace(t, filepath.Join(dir, "p.parquet"), "simulated")
	in, err := Load(t.Context(), traces.SLO{}, dir, tr)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build("t", in)
	if err != nil {
		t.Fatal(err)
	}
	rows := d.Sections[0].Blocks[0].(*Table).Rows
	want := []string{"p (" + sum + ")", "p (" + tr + ")"}
	for i, w := range want {
		if rows[i][0] != w {
			t.Errorf("row %d is named %q, want %q", i, rows[i][0], w)
		}
	}
	// one file given twice: the file, and a number to tell them apart
	in, err = Load(t.Context(), traces.SLO{}, sum, sum)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = Build("t", in); err != nil {
		t.Fatal(err)
	}
	rows = d.Sections[0].Blocks[0].(*Table).Rows
	if !strings.HasPrefix(rows[0][0], "p ("+sum) || rows[0][0] == rows[1][0] {
		t.Errorf("one summary given twice: rows named %q and %q", rows[0][0], rows[1][0])
	}
}
