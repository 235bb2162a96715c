package traces

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A crash during the writer's Close can cut the 8-byte end-of-stream
// marker after every batch is whole: Import, Open and Convert read every
// row, and the conversion does not say a message was cut. Its first 4
// bytes alone are what a kill leaves of a batch's prefix: that tail is
// still cut short (TestImportPartialCutShortRefuses).
func TestPartialCutInEndMarkerReadsWhole(t *testing.T) {
	dir := t.TempDir()
	data := streamOf(t, filepath.Join(dir, "full.arrows"), "a", "b", "c")
	want := []string{"a", "b", "c"}
	for _, kept := range []int{1, 2, 3, 5, 6, 7} { // bytes of the marker left
		path := filepath.Join(dir, "run.parquet"+PartialSuffix)
		if err := os.WriteFile(path, data[:len(data)-8+kept], 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Import(path, FormatAuto, ImportOptions{})
		if err != nil {
			t.Errorf("marker cut after %d bytes: import: %v", kept, err)
		} else if ids, err := idsOf(r); err != nil || !slices.Equal(ids, want) {
			t.Errorf("marker cut after %d bytes: import: rows %v, err %v; want %v", kept, ids, err, want)
		}
		if _, rows, err := ReadAll(path); err != nil || len(rows) != len(want) {
			t.Errorf("marker cut after %d bytes: open: %d rows, err %v; want %d", kept, len(rows), err, len(want))
		}
		out := filepath.Join(dir, "run.parquet")
		n, cut, err := ConvertPartial(context.Background(), path, out)
		if err != nil || n != len(want) || cut {
			t.Errorf("marker cut after %d bytes: convert: %d rows, cut short %v, err %v; want %d whole", kept, n, cut, err, len(want))
		}
		os.Remove(out)
	}
}

func idsOf(r Reader) ([]string, error) {
	defer r.Close()
	var ids []string
	for r.Next() {
		ids = append(ids, r.At().ID)
	}
	return ids, r.Err()
}
