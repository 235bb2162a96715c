package verify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
)

// A refitted profile, and the traces re-simulated with it, renamed into
// place whose directory was not synced are written: the refit does not
// fail, names its profile and compares its metrics, and Run returns the
// error after.
func TestRefitDirNotSyncedIsNoFailure(t *testing.T) {
	dir := t.TempDir()
	cfg := refitStub(t)
	parent := filepath.Join(dir, "parent.json")
	prof := parentProfile(t, parent)
	refit := filepath.Join(dir, "refit.json")
	trace := writeTrace(t, dir, 8, 130*time.Millisecond)
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	res, err := Run(context.Background(), Options{
		Candidates: candidates(4), Trace: trace, Replay: cfg,
		Profile: prof, ProfilePath: parent, Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
		Refit: &RefitOptions{Out: refit},
	})
	if !errors.Is(err, atomicfile.ErrDirNotSynced) {
		t.Errorf("Run: %v; want ErrDirNotSynced", err)
	}
	if _, serr := os.Stat(refit); serr != nil {
		t.Fatalf("%s not written: %v", refit, serr)
	}
	if rr := res.Refit; rr == nil || rr.Error != "" || rr.Out != refit || len(rr.MetricErrorAfter) == 0 {
		t.Errorf("refit %+v: want no failure, the profile %s named and the metrics after", rr, refit)
	}
}
