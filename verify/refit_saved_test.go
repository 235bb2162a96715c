package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A refit that saved its profile and then failed to re-simulate with it
// still names the profile it wrote: verify.json must not say there is
// none while the file stands at --refit-out.
func TestRefitFailedAfterSavingNamesTheProfile(t *testing.T) {
	dir := t.TempDir()
	cfg := refitStub(t)
	parent := filepath.Join(dir, "parent.json")
	prof := parentProfile(t, parent)
	out := filepath.Join(dir, "out")
	// The re-simulation at the engine's speed cannot write its trace.
	if err := os.MkdirAll(filepath.Join(out, "rank01.speed.sim.parquet", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	refit := filepath.Join(dir, "refit.json")
	res, err := Run(context.Background(), Options{
		Candidates: candidates(4), Trace: writeTrace(t, dir, 8, 130*time.Millisecond), Replay: cfg,
		Profile: prof, ProfilePath: parent, Out: out, Tolerances: DefaultTolerances(),
		Refit: &RefitOptions{Out: refit},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(refit); err != nil {
		// This setup fails only the re-simulation, after the save: a refit
		// that no longer saves first is what the test is here to catch.
		t.Fatalf("the refit failed before saving %s: %v (%+v)", refit, err, res.Refit)
	}
	if rr := res.Refit; rr == nil || rr.Error == "" || rr.Out != refit || rr.NewRuns != 1 {
		t.Errorf("refit %+v: want the failure beside the profile it saved (%s) and its run", rr, refit)
	}
	var b strings.Builder
	res.Refit.Print(&b)
	if !strings.Contains(b.String(), "failed") || !strings.Contains(b.String(), refit) {
		t.Errorf("printed %q: want the failure and the saved profile", b.String())
	}
	// A refit that failed before saving names no profile.
	rr, err := Refit(context.Background(), &Result{}, Options{Profile: prof, ProfilePath: parent}, RefitOptions{Out: refit + ".2"})
	if err == nil {
		t.Fatal("a refit with no measured run succeeded")
	}
	if rr != nil && rr.Out != "" {
		t.Errorf("a refit with nothing to fold in names %q as its profile, which it never saved", rr.Out)
	}
}
