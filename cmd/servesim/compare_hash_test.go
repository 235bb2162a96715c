package main

import (
	"os"
	"path/filepath"
	"testing"
)

// PATH#NAME splits at the '#' that ends an existing path: a folder with a
// '#' in its name (runs#2/) still takes a selector after the file.
func TestCompareSelectorAfterAPathWithAHash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs#2")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base.parquet")
	liveTrace(t, base, 100, 0, 200, 1200)
	if out, code := compare(t, base+"#base", base+"#base"); code != 0 {
		t.Errorf("%s#base: exit %d\n%s", base, code, out)
	}
}
