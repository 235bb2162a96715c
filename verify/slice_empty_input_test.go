package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A slice that keeps no request is refused before any candidate runs,
// and leaves no input.parquet behind to be taken for the slice of a run.
func TestRunEmptySliceLeavesNoInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	opt := Options{
		Candidates: candidates(1),
		Trace:      writeTrace(t, dir, 4, 50*time.Millisecond),
		Slice:      Slice{From: time.Hour},
		Replay:     stubReplay(t),
		Out:        out,
		Tolerances: DefaultTolerances(),
	}
	_, err := Run(context.Background(), opt)
	if err == nil || !strings.Contains(err.Error(), "holds no requests") {
		t.Fatalf("err = %v, want the empty slice refused", err)
	}
	if _, err := os.Stat(filepath.Join(out, "input.parquet")); !os.IsNotExist(err) {
		t.Errorf("the refused slice was left in %s (stat: %v)", filepath.Join(out, "input.parquet"), err)
	}
}
