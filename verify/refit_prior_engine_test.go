package verify

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
)

// A refit of a Vidur prior is fitted on the engine verify ran, not timed
// by Vidur's profiler: it does not name the prior's engine as its own.
func TestRefitOfAVidurPriorDoesNotNameVidurAsItsEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := refitStub(t)
	prior, err := calibrate.LoadProfile("../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	// As NewVidurProfile writes one: no engine run, no trace, nothing fitted.
	prior.Engine, prior.EngineVersion, prior.EngineArgs = calibrate.VidurEngine, "", []string{}
	prior.Traces, prior.Quality, prior.Admission, prior.Power = []calibrate.TraceRef{}, calibrate.FitQuality{}, nil, nil
	prior.Lineage = []calibrate.LineageEntry{}
	tr := writeTrace(t, dir, 16, 130*time.Millisecond)
	refit := filepath.Join(dir, "refit.json")
	opt := Options{Candidates: candidates(4, 1), Trace: tr, Replay: cfg, Profile: prior, ProfilePath: filepath.Join(dir, "prior.json"),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), Refit: &RefitOptions{Out: refit}}
	if err := prior.Save(opt.ProfilePath); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if rr := res.Refit; rr == nil || rr.Error != "" {
		t.Fatalf("refit: %+v", rr)
	}
	np, err := calibrate.LoadProfile(refit)
	if err != nil {
		t.Fatal(err)
	}
	if np.Engine == calibrate.VidurEngine {
		t.Errorf("refit profile's engine = %q: its steps were timed on the engine verify ran, not by Vidur's profiler", np.Engine)
	}
}
