package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Importing a partial stream whose last message was cut short refuses it,
// naming the file, the rows it holds whole and the conversion that keeps
// them: an import that went on would drop the cut rows unseen. A stream
// that ends at a message boundary (a kill between flushes) imports whole.
func TestImportPartialCutShortRefuses(t *testing.T) {
	dir := t.TempDir()
	two := streamOf(t, filepath.Join(dir, "two.arrows"), "a", "b")
	three := streamOf(t, filepath.Join(dir, "three.arrows"), "a", "b", "c")
	boundary := len(two) - 8 // where the third batch begins
	end := len(three) - 8    // the third batch's end, before the end-of-stream marker
	// A byte or three past the boundary reads as a cut end-of-stream
	// marker (TestPartialCutInEndMarkerReadsWhole); 4 is the continuation
	// token a kill leaves of the next batch.
	for _, n := range []int{boundary + 4, boundary + 8, (boundary + end) / 2, end - 1} {
		path := filepath.Join(dir, "run.parquet"+PartialSuffix)
		if err := os.WriteFile(path, three[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		for _, format := range []ImportFormat{FormatAuto, FormatServesim} {
			r, err := Import(path, format, ImportOptions{})
			if err == nil {
				rows := 0
				for r.Next() {
					rows++
				}
				r.Close()
				t.Errorf("cut at %d of %d bytes, %s: imported %d rows, err %v; want a refusal", n, len(three), format, rows, r.Err())
				continue
			}
			msg := err.Error()
			for _, want := range []string{"cut short", "rows read whole: 2", "trace convert"} {
				if !strings.Contains(msg, want) {
					t.Errorf("cut at %d, %s: err = %q, want it to say %q", n, format, msg, want)
				}
			}
			if c := strings.Count(msg, path); c != 2 { // the file, and the conversion's IN
				t.Errorf("cut at %d, %s: err = %q names %s %d times, want twice", n, format, msg, path, c)
			}
		}
	}
	for _, n := range []int{boundary, end} {
		path := filepath.Join(dir, "killed.parquet"+PartialSuffix)
		if err := os.WriteFile(path, three[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Import(path, FormatAuto, ImportOptions{})
		if err != nil {
			t.Fatalf("ends at a boundary (%d bytes): %v", n, err)
		}
		rows := 0
		for r.Next() {
			rows++
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if want := 2 + (n-boundary)/(end-boundary); rows != want {
			t.Errorf("ends at a boundary (%d bytes): %d rows, want %d", n, rows, want)
		}
	}
}
