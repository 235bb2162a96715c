package traces

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadPartial writes arbitrary bytes to a recording's partial stream
// (PartialSuffix) and imports it, as trace convert and simulate do with a
// killed run's rows. The property: no panic and no hang, and either an
// error that names the file (a last message cut short is refused) or rows
// that pass checkFuzzRows: every row
// the stream holds whole, in arrival order whatever order they completed
// in. Seeds (streams in completion order, one cut short by a kill, and
// the stream seeds of FuzzReadArrowIPC) live in
// testdata/fuzz/FuzzReadPartial.
func FuzzReadPartial(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog()()
		path := filepath.Join(t.TempDir(), "t.parquet"+PartialSuffix)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		whole := countWhole(path)
		r, err := Import(path, FormatServesim, ImportOptions{})
		if err != nil {
			checkFuzzErr(t, path, "open", err)
			return
		}
		n := 0
		counted := &countingReader{Reader: r, n: &n}
		if err := checkFuzzRows(t, counted); err != nil {
			checkFuzzErr(t, path, "read", err)
			return
		}
		if whole >= 0 && n != whole {
			t.Fatalf("imported %d rows of the %d the stream holds whole", n, whole)
		}
	})
}

// countWhole is the number of rows OpenTolerant reads from path, -1 when
// it fails.
func countWhole(path string) int {
	n, err := CountTolerant(path)
	if err != nil {
		return -1
	}
	return n
}

type countingReader struct {
	Reader
	n *int
}

func (c *countingReader) Next() bool {
	ok := c.Reader.Next()
	if ok {
		*c.n++
	}
	return ok
}
