package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
)

// interruptedClear leaves dir as a clearing killed after it moved the
// first of 3 runs aside does, and returns the directory it moved it to.
func interruptedClear(t *testing.T, dir string) string {
	t.Helper()
	names := writeRuns(t, dir, 3)
	trash := filepath.Join(dir, ".cleared-runs-123")
	if err := os.Mkdir(trash, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, names[0]), filepath.Join(trash, names[0])); err != nil {
		t.Fatal(err)
	}
	return trash
}

// Runs that an interrupted clearing moved aside are missing from the
// directory: a refit of what is left would fit fewer runs unseen, so it
// is refused, naming where the others are.
func TestLoadRunsRefusesRunsAnInterruptedClearMoved(t *testing.T) {
	dir := t.TempDir()
	trash := interruptedClear(t, dir)
	runs, err := LoadRuns(dir)
	if err == nil || !strings.Contains(err.Error(), trash) {
		t.Fatalf("LoadRuns = %d runs, %v; want an error naming %s", len(runs), err, trash)
	}
}

// The next calibration clears the runs an interrupted clearing moved
// aside with the rest of that calibration's.
func TestClearRunsRemovesRunsAnInterruptedClearMoved(t *testing.T) {
	dir := t.TempDir()
	interruptedClear(t, dir)
	n, err := ClearRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if left := testfs.Names(t, dir); n != 3 || len(left) != 0 {
		t.Errorf("ClearRuns = %d, left %v; want the 3 runs removed and nothing left", n, left)
	}
}
