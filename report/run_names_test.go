package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/traces"
)

// Two simulate --out folders of the same plans (a before and an after)
// hold runs of the same names: the tables and figures tell them apart by
// where each came from, not by a name that repeats.
func TestRunsOfOneNameFromTwoInputsAreToldApart(t *testing.T) {
	data, err := os.ReadFile("testdata/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range []string{"before", "after"} {
		dir := filepath.Join(t.TempDir(), d)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "summary.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, dir)
	}
	in, err := Load(t.Context(), traces.SLO{}, paths...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build("t", in)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			tb, ok := b.(*Table)
			if !ok {
				continue
			}
			seen := map[string]bool{}
			for _, r := range tb.Rows {
				if seen[r[0]] {
					t.Errorf("%s: two rows are named %q", s.Title, r[0])
				}
				seen[r[0]] = true
			}
		}
	}
}
