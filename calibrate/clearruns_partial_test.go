package calibrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
)

// writeRuns writes n calibration runs to dir and returns their names.
func writeRuns(t *testing.T, dir string, n int) []string {
	t.Helper()
	tm := replay.TextModel{TokensPerByte: 1, Overhead: 20}
	var names []string
	for i := 1; i <= n; i++ {
		spec := RunSpec{Name: fmt.Sprintf("decode-c%d-p64-r1", i), Kind: KindDecode, Concurrency: i, Prompts: []int{64}, Outputs: []int{2}, Requests: 1, Repeat: 1}
		run := &RunResult{Spec: spec, Salt: 1, Text: tm, Rows: []*traces.Request{row(spec.Name+"/0", 64, 0, 40, 60)}}
		name := fmt.Sprintf("%02d-%s.parquet", i, spec.Name)
		if err := writeRun(filepath.Join(dir, name), traces.Meta{Model: "m"}, run, tm); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// A calibration's runs are cleared all or none: when one cannot be
// removed, the others stay too, else a refit of the directory would read
// the rest as a calibration of fewer runs. The error names the file.
func TestClearRunsAllOrNone(t *testing.T) {
	dir := t.TempDir()
	names := writeRuns(t, dir, 3)
	stuck := filepath.Join(dir, names[1])
	orig := renameFile
	t.Cleanup(func() { renameFile = orig })
	renameFile = func(from, to string) error {
		if from == stuck {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: errors.New("operation not permitted")}
		}
		return orig(from, to)
	}
	n, err := ClearRuns(dir)
	if err == nil || !strings.Contains(err.Error(), stuck) {
		t.Fatalf("ClearRuns = %d, %v; want an error naming %s", n, err, stuck)
	}
	if n != 0 {
		t.Errorf("ClearRuns removed %d runs, want none", n)
	}
	if left := testfs.Names(t, dir); !slices.Equal(left, names) {
		t.Errorf("left %v, want every run kept: %v", left, names)
	}
}
