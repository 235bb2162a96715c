package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A slice that keeps no request (a window past the trace's end, or given
// in the wrong unit) is refused, and nothing is written: an empty trace
// would only fail later, far from the cause.
func TestTraceSliceKeepingNothingIsRefused(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.csv")
	if _, err := run(t, "trace", "synth", "--requests", "20", src); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.parquet")
	_, err := run(t, "trace", "slice", "--from", "1h", src, out)
	if err == nil || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), "no request arrives in [1h0m0s, end)") {
		t.Errorf("err = %v, want the input named and the empty window", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an empty slice was written to %s", out)
	}
	if _, err := run(t, "trace", "slice", "--from", "5s", "--to", "20s", src, out); err != nil {
		t.Errorf("a window holding requests: %v", err)
	}
}
