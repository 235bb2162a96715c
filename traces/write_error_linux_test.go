//go:build linux

package traces

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
)

// A trace that cannot be written (here: past a file-size limit, as on a
// full disk) fails with an error naming its path, not the temporary file
// it was written to, which is gone.
func TestWriteErrorNamesThePath(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrow", ".arrows", ".csv", ".jsonl"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t"+ext)
			var err error
			testfs.WithFileSizeLimit(t, 64, func() {
				var w Writer
				if w, err = Create(path, sampleMeta()); err != nil {
					return
				}
				for _, r := range sampleRequests() {
					if err = w.Write(r); err != nil {
						w.Abort()
						return
					}
				}
				err = w.Close()
			})
			if err == nil {
				t.Fatal("wrote the trace past the file size limit")
			}
			if !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp") {
				t.Errorf("err = %v, want one naming %s and not the temporary file", err, path)
			}
		})
	}
}
