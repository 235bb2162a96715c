package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
)

// A parent fitted to an engine of slots (resident-token terms on, the
// per-sequence attention terms held by that choice) whose memory runs,
// which count the slots, are gone would be refitted as a paged engine:
// other terms, and a "before" that is not what the parent predicts. The
// refit says so and saves nothing.
func TestRefitOfAnEngineOfSlotsNeedsTheRunsThatCountThem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := refitStub(t)
	parent, err := calibrate.LoadProfile("../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	parent.Step.Ca, parent.Step.Ck = calibrate.Coef{Status: calibrate.StatusOff}, calibrate.Coef{Status: calibrate.StatusOff}
	parent.Step.Crd = calibrate.Coef{Value: 2e-8, Lo: 1e-8, Hi: 3e-8, Status: calibrate.StatusFit}
	parent.Method = &calibrate.FitMethod{Window: 8, Relative: true, Linear: true, Without: []string{}, HeldOutFolds: 4}
	parent.Traces = []calibrate.TraceRef{} // the ramp's traces are gone
	refit := filepath.Join(dir, "refit.json")
	opt := Options{Candidates: candidates(4, 1), Trace: writeTrace(t, dir, 16, 130*time.Millisecond), Replay: cfg, Profile: parent,
		ProfilePath: filepath.Join(dir, "parent.json"), Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), Refit: &RefitOptions{Out: refit}}
	if err := parent.Save(opt.ProfilePath); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if rr := res.Refit; rr == nil || !strings.Contains(rr.Error, "engine of slots") {
		t.Errorf("refit %+v: want an error saying the parent's engine of slots was not found", rr)
	}
	if _, err := os.Stat(refit); !os.IsNotExist(err) {
		t.Errorf("refit saved (%v): want none from another model form", err)
	}
}
