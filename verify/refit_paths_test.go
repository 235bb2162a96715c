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

// checkProfilePaths: every trace and lineage path of the profile at path
// names, from the profile's own directory, the file it hashed.
func checkProfilePaths(t *testing.T, path string) *calibrate.Profile {
	t.Helper()
	p, err := calibrate.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	check := func(what, p, sum string) {
		if filepath.IsAbs(p) {
			t.Errorf("%s: %s %q: want a path from the profile's directory", path, what, p)
		}
		if got, err := calibrate.FileSHA256(filepath.Join(dir, p)); err != nil || got != sum {
			t.Errorf("%s: %s %q: not found from the profile's directory (%v)", path, what, p, err)
		}
	}
	for _, r := range p.Traces {
		check("trace", r.Path, r.SHA256)
	}
	for _, l := range p.Lineage {
		if l.Path == "" || l.SHA256 == strings.Repeat("01", 32) {
			// profile_v1.json's own parent, which is nowhere: it lay
			// beside parent.json, in the directory verify ran in.
			if got := filepath.Join(dir, l.Path); got != filepath.Join("profiles", "old.json") {
				t.Errorf("%s: lineage %q names %s from the current directory, want profiles/old.json", path, l.Path, got)
			}
			continue
		}
		check("lineage "+l.Relation, l.Path, l.SHA256)
	}
	return p
}

// A refitted profile names its traces and its parent from its own
// directory, however far that is from the directory verify ran in; and a
// refit of it, saved deeper still, finds its parent's traces and names
// them from where it lies.
func TestRefitProfilePathsResolveFromItsDirectory(t *testing.T) {
	dir := t.TempDir()
	cfg := refitStub(t)
	data, err := os.ReadFile("../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	tr := writeTrace(t, dir, 16, 130*time.Millisecond)
	t.Chdir(dir)
	os.WriteFile("parent.json", data, 0o644)
	prof, err := calibrate.LoadProfile("parent.json")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join("profiles", "v2"), 0o755)
	refit := filepath.Join("profiles", "v2", "refit.json")
	opt := Options{Candidates: candidates(4, 1), Trace: tr, Replay: cfg, Profile: prof, ProfilePath: "parent.json",
		Out: "out", Tolerances: DefaultTolerances(), Refit: &RefitOptions{Out: refit}}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if rr := res.Refit; rr == nil || rr.Error != "" {
		t.Fatalf("refit: %+v", rr)
	}
	np := checkProfilePaths(t, refit)

	// Refit the refit: its traces are found from its directory.
	os.MkdirAll(filepath.Join("profiles", "v3", "deeper"), 0o755)
	refit2 := filepath.Join("profiles", "v3", "deeper", "refit.json")
	opt.Profile, opt.ProfilePath = np, refit // opt.Catalog nil, as Run was given it: the default
	rr, err := Refit(context.Background(), res, opt, RefitOptions{Out: refit2})
	if err != nil {
		t.Fatal(err)
	}
	if rr.OldRuns != len(np.Traces) || len(rr.Missing) != 0 {
		t.Errorf("second refit found %d of the parent's %d traces (missing %v)", rr.OldRuns, len(np.Traces), rr.Missing)
	}
	np2 := checkProfilePaths(t, refit2)
	// The first refit's verification runs are replayed as verification
	// runs, as it fitted them, not as mixed calibration runs; the step
	// error on this verification's runs is on its own alone.
	for _, ref := range np2.Traces {
		if ref.Kind != KindVerify {
			t.Errorf("second refit cites %s as a %q run, want %q", ref.Path, ref.Kind, KindVerify)
		}
	}
	if len(rr.StepBiasBefore) != rr.NewRuns {
		t.Errorf("second refit: step bias of %d runs, want this verification's %d", len(rr.StepBiasBefore), rr.NewRuns)
	}
}
