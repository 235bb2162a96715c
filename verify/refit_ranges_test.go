package verify

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
)

// A refit whose parent's memory runs are not found keeps the parent's
// measured ramp, as it keeps its KV capacity: the sequences-at-once
// warning still holds for the plans the refit prices.
func TestRefitWithoutTheRampKeepsTheParentsMaxSeqs(t *testing.T) {
	dir := t.TempDir()
	cfg := refitStub(t)
	parent, err := calibrate.LoadProfile("../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	parent.MaxSeqs = 48
	parent.Traces = []calibrate.TraceRef{} // the ramp's traces are gone
	tr := writeTrace(t, dir, 16, 130*time.Millisecond)
	refit := filepath.Join(dir, "refit.json")
	opt := Options{Candidates: candidates(4, 1), Trace: tr, Replay: cfg, Profile: parent, ProfilePath: filepath.Join(dir, "parent.json"),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), Refit: &RefitOptions{Out: refit}}
	if err := parent.Save(opt.ProfilePath); err != nil {
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
	if np.MaxSeqs != 48 {
		t.Errorf("refit's max_seqs = %d, want the parent's 48 (its ramp was not refitted)", np.MaxSeqs)
	}
}
