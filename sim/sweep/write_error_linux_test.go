//go:build linux

package sweep

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
)

// A results file that cannot be written fails naming its path once: the
// file's write error names it, and WriteFile named it again ("p: write p:
// …").
func TestWriteFileErrorNamesThePathOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.parquet")
	rows := make([]Row, 2000)
	for i := range rows {
		rows[i] = Row{Index: int64(i), Rank: int64(i + 1), Label: strings.Repeat("x", 40)}
	}
	var err error
	testfs.WithFileSizeLimit(t, 1<<10, func() { err = WriteResults(path, rows) })
	if err == nil {
		t.Fatal("the results were written past the file size limit")
	}
	if n := strings.Count(err.Error(), path); n != 1 || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("err = %v: names %s %d times; want once, and no temporary file", err, path, n)
	}
}
