package calibrate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// A run that fails after an earlier run's trace was renamed into place
// without its directory synced reports both: the failure first, then the
// unsynced trace, which a crash may yet undo. Not parallel: FailDirSync
// holds for the whole process.
func TestRunPlanFailureKeepsEarlierNotSynced(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	run := func(name string) RunSpec {
		return RunSpec{Name: name, Kind: KindDecode, Concurrency: 1, Prompts: []int{64}, Outputs: []int{2}, Requests: 1, Repeat: 1}
	}
	plan := &Plan{Runs: []RunSpec{run("a"), run("b")}}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
	dir := t.TempDir()
	// The second run's trace cannot replace a directory.
	if err := os.Mkdir(filepath.Join(dir, "01-b.parquet"), 0o755); err != nil {
		t.Fatal(err)
	}
	restore := atomicfile.FailDirSync(errors.New("input/output error"))
	defer restore()
	runs, _, err := RunPlan(t.Context(), plan, LiveOptions{Replay: cfg, TraceDir: dir})
	if len(runs) != 1 {
		t.Fatalf("%d runs returned, want the first alone", len(runs))
	}
	if err == nil || atomicfile.OnlyNotSynced(err) {
		t.Fatalf("err = %v, want the second run's write failure", err)
	}
	msg := err.Error()
	failed, unsynced := strings.Index(msg, "01-b.parquet"), strings.Index(msg, "00-a.parquet")
	if failed < 0 || unsynced < 0 || !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Fatalf("err = %v, want the failure of 01-b.parquet and the unsynced 00-a.parquet", err)
	}
	if failed > unsynced {
		t.Fatalf("err = %v, want the failure first", err)
	}
}
