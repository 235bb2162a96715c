package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A --head that keeps warm-up rows alone is refused for what it kept, not
// as a window no request arrives in: the requests did arrive, the head
// cut them.
func TestTraceSliceHeadOfWarmupRowsSaysSo(t *testing.T) {
	dir := t.TempDir()
	warm := filepath.Join(dir, "warm.csv")
	if _, err := run(t, "trace", "synth", "--requests", "5", "--warmup", "3", "--arrival", "constant", "--rate", "1", warm); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, "trace", "slice", "--head", "3", warm, filepath.Join(dir, "out.parquet"))
	if err == nil || strings.Contains(err.Error(), "no request arrives") || !strings.Contains(err.Error(), "--head 3") ||
		!strings.Contains(err.Error(), "3 warm-up rows") {
		t.Errorf("err = %v, want the 3 warm-up rows kept by --head 3 named", err)
	}
}

// A head larger than the window's warm-up rows did not cut anything: the
// window is what holds no measured request.
func TestTraceSliceWindowOfWarmupRowsUnderAHead(t *testing.T) {
	dir := t.TempDir()
	warm := filepath.Join(dir, "warm.csv")
	if _, err := run(t, "trace", "synth", "--requests", "5", "--warmup", "3", "--arrival", "constant", "--rate", "1", warm); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, "trace", "slice", "--head", "10", "--to", "2500ms", warm, filepath.Join(dir, "out.parquet"))
	if err == nil || !strings.Contains(err.Error(), "no request arrives in [0s, 2.5s), warm-up rows aside") {
		t.Errorf("err = %v, want the window named", err)
	}
}
