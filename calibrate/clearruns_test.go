package calibrate

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
)

// A calibration clears the runs an earlier one wrote to its trace
// directory, and only those: a trace of another kind whose name happens
// to start with a number (a recording, 2024-05-chat.parquet) is the
// user's, which a refit of the directory skips as well.
func TestClearRunsKeepsOtherTraces(t *testing.T) {
	dir := t.TempDir()
	tm := replay.TextModel{TokensPerByte: 1, Overhead: 20}
	spec := RunSpec{Name: "decode-c1-p64-r1", Kind: KindDecode, Concurrency: 1, Prompts: []int{64}, Outputs: []int{2}, Requests: 1, Repeat: 1}
	run := &RunResult{Spec: spec, Salt: 1, Text: tm, Rows: []*traces.Request{row(spec.Name+"/0", 64, 0, 40, 60)}}
	if err := writeRun(filepath.Join(dir, "01-decode-c1-p64-r1.parquet"), traces.Meta{Model: "m"}, run, tm); err != nil {
		t.Fatal(err)
	}
	recording := filepath.Join(dir, "2024-05-chat.parquet")
	if err := traces.WriteAll(recording, traces.Meta{Model: "m", Source: "live"}, []*traces.Request{row("a", 64, 0, 40, 60)}); err != nil {
		t.Fatal(err)
	}
	n, err := ClearRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if n != 1 || !slices.Equal(left, []string{"2024-05-chat.parquet"}) {
		t.Errorf("removed %d, left %v; want the calibration run removed and the recording kept", n, left)
	}
}
