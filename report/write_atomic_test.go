package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
)

// A Markdown report and its figures appear together or not at all: a
// failure part-way (here a figure that cannot be written, or the report
// itself) leaves the previous report and its figures as they were, and
// no temporary files.
func TestMarkdownReportWrittenWholeOrNotAtAll(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)
	fig := func(name string) *Figure { return &Figure{Name: name, Caption: name, SVG: svg} }
	for _, tc := range []struct {
		name  string
		figs  []Block
		mdDir bool // the report's own path is taken by a directory
	}{
		{"figure fails", []Block{fig("a"), fig("no-such-dir/b")}, false},
		{"report fails", []Block{fig("a"), fig("b")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "r.md")
			assets := filepath.Join(dir, "r_files")
			if err := os.Mkdir(assets, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(assets, "a.svg"), []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.mdDir {
				if err := os.MkdirAll(filepath.Join(out, "x"), 0o755); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(out, []byte("old report"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := testfs.Names(t, dir)
			d := &Doc{Title: "t", Sections: []Built{{ID: "f", Title: "F", Blocks: tc.figs}}}
			if err := WriteFile(out, d); err == nil {
				t.Fatal("WriteFile succeeded")
			}
			if got := testfs.Names(t, dir); !slices.Equal(got, before) {
				t.Errorf("after a failed write the folder holds %q, want %q as before", got, before)
			}
			if got := testfs.Names(t, assets); !slices.Equal(got, []string{"a.svg"}) {
				t.Errorf("figures %q: want the old a.svg only", got)
			}
			if b, _ := os.ReadFile(filepath.Join(assets, "a.svg")); string(b) != "old" {
				t.Errorf("old figure overwritten: %q", b)
			}
		})
	}
}

// A Markdown report written over an older one keeps none of the older
// one's figures: its figure folder is its own.
func TestMarkdownReportReplacesOldFigures(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.md")
	assets := filepath.Join(dir, "r_files")
	if err := os.Mkdir(assets, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(assets, "stale.svg"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &Doc{Title: "t", Sections: []Built{{ID: "f", Title: "F", Blocks: []Block{
		&Figure{Name: "a", Caption: "a", SVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)}}}}}
	if err := WriteFile(out, d); err != nil {
		t.Fatal(err)
	}
	if got := testfs.Names(t, assets); !slices.Equal(got, []string{"a.svg"}) {
		t.Errorf("figures %q: want a.svg only", got)
	}
	if got := testfs.Names(t, dir); !slices.Equal(got, []string{"r.md", "r_files"}) {
		t.Errorf("folder %q: want r.md and r_files only", got)
	}
	if fi, err := os.Stat(assets); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("figure folder: %v, %v: want mode 0755", fi.Mode(), err)
	}
}

// The figure folder is replaced whole, so one that holds anything a report
// would not have written is refused, and left as it was.
func TestMarkdownReportKeepsForeignFigureFolder(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "notes.md")
	assets := filepath.Join(dir, "notes_files")
	if err := os.Mkdir(assets, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(assets, "draft.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &Doc{Title: "t", Sections: []Built{{ID: "s", Title: "S", Blocks: []Block{&Figure{Name: "a", Caption: "a", SVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)}}}}}
	err := WriteFile(out, d)
	if err == nil || !strings.Contains(err.Error(), "draft.txt") {
		t.Fatalf("WriteFile = %v, want an error naming draft.txt", err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Errorf("draft.txt = %q, %v: want it kept", b, err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("report written beside a refused folder: %v", err)
	}
}
