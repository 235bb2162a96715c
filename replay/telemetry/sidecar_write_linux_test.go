//go:build linux

package telemetry

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
)

// Samples that cannot be written fail naming the file once: its write
// error names it, and the sidecar named it again ("p: write p: …").
func TestSidecarWriteErrorNamesThePathOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpu.csv")
	s, err := createSidecar(path, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.discard()
	row := []string{strings.Repeat("x", 100), "y"}
	testfs.WithFileSizeLimit(t, 1<<10, func() {
		for range 100 {
			if err = s.write(row); err != nil {
				break
			}
		}
	})
	if err == nil {
		t.Fatal("the samples were written past the file size limit")
	}
	if n := strings.Count(err.Error(), path); n != 1 || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("err = %v: names %s %d times; want once, and no temporary file", err, path, n)
	}
}
