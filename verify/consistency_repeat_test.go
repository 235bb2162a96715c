package verify

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// With --repeat every run's texts are compared, not the first run's only:
// one candidate measured twice has every request compared between its runs.
func TestConsistencyComparesEveryRun(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	opt := Options{Candidates: candidates(1), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: stubReplay(t),
		Engine: &EngineSpec{Start: `trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`, HealthURL: fakeEngine(t, dir),
			HealthTimeout: 5 * time.Second, StopTimeout: 3 * time.Second},
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), Repeat: 2}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	cs := res.Consistency
	if cs.Compared != 4 || cs.Reference != "seqs=1 (run 1)" || len(cs.PerCandidate) != 1 || cs.PerCandidate[0].Label != "seqs=1 (run 2)" || cs.PerCandidate[0].Compared != 4 {
		t.Errorf("consistency %+v: want the 4 requests compared between run 1 and run 2", cs)
	}
}
