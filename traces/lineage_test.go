package traces

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
)

// A run on a converted file and a run on its source fed the same rows:
// their input checksums must match. A slice or a scale of it is another
// workload and must not.
func TestConvertedFileKeepsSourceLineage(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "azure2023_code_head200.csv")
	sums := func(path string, format ImportFormat) map[string]string {
		t.Helper()
		r, err := Import(path, format, ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return r.Meta().Checksums
	}
	write := func(out string, r Reader, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteTrace(context.Background(), out, r); err != nil {
			t.Fatal(err)
		}
	}
	conv := filepath.Join(dir, "conv.parquet")
	r, err := Import(src, FormatAuto, ImportOptions{})
	write(conv, r, err)
	if a, b := sums(src, FormatAuto), sums(conv, FormatAuto); !maps.Equal(a, b) {
		t.Errorf("source checksums %v, converted file's %v: want the same", a, b)
	}
	arrow := filepath.Join(dir, "conv.arrow")
	if _, err := Convert(context.Background(), conv, arrow); err != nil {
		t.Fatal(err)
	}
	if a, b := sums(src, FormatAuto), sums(arrow, FormatAuto); !maps.Equal(a, b) {
		t.Errorf("source checksums %v, re-converted file's %v: want the same", a, b)
	}

	sliced := filepath.Join(dir, "slice.parquet")
	r, err = Import(conv, FormatServesim, ImportOptions{})
	write(sliced, Slice(r, 0, 0, 10), err)
	if a, b := sums(src, FormatAuto), sums(sliced, FormatAuto); maps.Equal(a, b) {
		t.Errorf("a slice's checksums %v equal its source's: want them told apart", b)
	}
	scaled := filepath.Join(dir, "scale.parquet")
	r, err = Import(conv, FormatServesim, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Scale(r, 2)
	write(scaled, s, err)
	if a, b := sums(src, FormatAuto), sums(scaled, FormatAuto); maps.Equal(a, b) {
		t.Errorf("a scale's checksums %v equal its source's: want them told apart", b)
	}
}
