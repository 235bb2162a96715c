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
	if err == nil || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), "no request arrives in [1h0m0s, end), warm-up rows aside") {
		t.Errorf("err = %v, want the input named and the empty window", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an empty slice was written to %s", out)
	}
	// Warm-up rows alone are nothing to measure either.
	warm := filepath.Join(dir, "warm.csv")
	if _, err := run(t, "trace", "synth", "--requests", "5", "--warmup", "3", "--arrival", "constant", "--rate", "1", warm); err != nil {
		t.Fatal(err)
	}
	_, err = run(t, "trace", "slice", "--to", "2500ms", warm, out)
	if err == nil || !strings.Contains(err.Error(), "warm-up rows aside") {
		t.Errorf("a window of warm-up rows: err = %v, want it refused", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a slice of warm-up rows was written to %s", out)
	}
	if _, err := run(t, "trace", "slice", "--from", "5s", "--to", "20s", src, out); err != nil {
		t.Errorf("a window holding requests: %v", err)
	}
}
