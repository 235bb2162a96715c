//go:build linux

package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
)

// A JSON output that cannot be encoded or written fails with an error
// naming its path, not the temporary file, and leaves nothing behind.
func TestWriteJSONAtomicErrorNamesThePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("%s: err = %v, want one naming %s and not the temporary file", what, err, path)
		}
		if names := testfs.Names(t, dir); len(names) != 0 {
			t.Errorf("%s: left %v", what, names)
		}
	}
	check("NaN", writeJSONAtomic(path, map[string]float64{"x": math.NaN()}))
	var err error
	testfs.WithFileSizeLimit(t, 4, func() { err = writeJSONAtomic(path, map[string]string{"x": "too long"}) })
	check("full disk", err)
}
