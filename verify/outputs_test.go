package verify

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Outputs names every file Run writes in Out, so that a caller can check
// them against its inputs before any is replaced.
func TestOutputsNameEveryFileRunWrites(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	out := filepath.Join(dir, "out")
	opt := Options{Candidates: candidates(1, 2), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: stubReplay(t),
		Engine: &EngineSpec{Start: `trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`, HealthURL: fakeEngine(t, dir),
			HealthTimeout: 5 * time.Second, StopTimeout: 3 * time.Second},
		Out: out, Tolerances: DefaultTolerances(), Repeat: 2}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	want := opt.Outputs()
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if p := filepath.Join(out, e.Name()); !slices.Contains(want, p) {
			t.Errorf("Run wrote %s, which Outputs does not name (%v)", p, want)
		}
	}
	if len(entries) != len(want) {
		t.Errorf("Run wrote %d files, Outputs names %d", len(entries), len(want))
	}
}
