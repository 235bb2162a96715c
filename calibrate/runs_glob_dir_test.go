package calibrate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
)

// A trace directory is found whatever it is named: a name holding a
// glob's special characters ("runs[1]") is a directory, not a pattern, so
// a refit reads its runs and a new calibration clears them.
func TestRunsInADirectoryNamedLikeAPattern(t *testing.T) {
	tm := replay.TextModel{TokensPerByte: 1, Overhead: 20}
	spec := RunSpec{Name: "decode-c1-p64-r1", Kind: KindDecode, Concurrency: 1, Prompts: []int{64}, Outputs: []int{2}, Requests: 1, Repeat: 1}
	for _, name := range []string{"runs[1]", "runs*", "a\\b"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Skipf("%s: %v", name, err)
		}
		run := &RunResult{Spec: spec, Salt: 1, Text: tm, Rows: []*traces.Request{row(spec.Name+"/0", 64, 0, 40, 60)}}
		if err := writeRun(filepath.Join(dir, "01-decode-c1-p64-r1.parquet"), traces.Meta{Model: "m"}, run, tm); err != nil {
			t.Fatal(err)
		}
		runs, err := LoadRuns(dir)
		if err != nil || len(runs) != 1 {
			t.Errorf("%s: LoadRuns = %d runs, %v; want the one run", name, len(runs), err)
		}
		n, err := ClearRuns(dir)
		if err != nil || n != 1 {
			t.Errorf("%s: ClearRuns = %d, %v; want the one run removed", name, n, err)
		}
	}
}
