package verify

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// verify.json's wall_seconds is the time each candidate took, a failed
// one's too: it is not left at 0.
func TestRunRecordsEachCandidatesWallTime(t *testing.T) {
	dir := t.TempDir()
	cands := candidates(1, 2)
	cands.Candidates[1].RateScale = 0 // not run: a bad rate
	opt := Options{Candidates: cands, Trace: writeTrace(t, dir, 4, 50*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Status != StatusOK || !(c.WallSeconds >= 0.15) {
		t.Errorf("candidate %s (%s): wall_seconds %v, want the replay's ≥ 0.15 s at least", c.Label, c.Status, c.WallSeconds)
	}
	if c := res.Candidates[1]; c.Status != StatusPlan || !(c.WallSeconds > 0) {
		t.Errorf("candidate %s (%s): wall_seconds %v, want > 0", c.Label, c.Status, c.WallSeconds)
	}
}
