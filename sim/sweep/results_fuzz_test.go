package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// FuzzReadResults writes arbitrary bytes to a results file and reads it
// as sweep merge, report and verify do. The property: no panic and no
// hang, and either an error that names the file or rows that WriteFile
// writes back and ReadFile reads again unchanged. Seeds (a results file
// from WriteFile, a truncated one and one with a flipped byte) live in
// testdata/fuzz/FuzzReadResults.
func FuzzReadResults(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		stop := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic("input took over 10s:\n" + string(buf[:runtime.Stack(buf, true)]))
		}).Stop
		defer stop()
		dir := t.TempDir()
		path := filepath.Join(dir, "results.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := ReadFile(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		again := filepath.Join(dir, "again.parquet")
		if err := WriteFile(again, res); err != nil {
			t.Fatalf("writing back what was read: %v", err)
		}
		back, err := ReadFile(again)
		if err != nil {
			t.Fatalf("reading back what was written: %v", err)
		}
		if !reflect.DeepEqual(back.Meta, res.Meta) || len(back.Rows) != len(res.Rows) {
			t.Fatalf("written back and read again: %+v, %d rows; read first: %+v, %d rows", back.Meta, len(back.Rows), res.Meta, len(res.Rows))
		}
		for i := range res.Rows {
			if a, b := rowJSON(res.Rows[i]), rowJSON(back.Rows[i]); a != b {
				t.Fatalf("row %d differs written back:\n%s\n%s", i, a, b)
			}
		}
	})
}
