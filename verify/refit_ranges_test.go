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
	t.Parallel()
	if got := refitParentMaxSeqs(t, 48, 130*time.Millisecond); got != 48 {
		t.Errorf("refit's max_seqs = %d, want the parent's 48 (its ramp was not refitted)", got)
	}
}

// Verification runs that ran more sequences at once than the parent's
// max_seqs measured the decode terms there, as a decode run above the
// ramp's top does in calibrate: the refit's max_seqs rises to them.
func TestRefitWithoutTheRampRaisesMaxSeqsToTheFittedRuns(t *testing.T) {
	t.Parallel()
	// A request every 60 ms, each ~100 ms long: two at once.
	if got := refitParentMaxSeqs(t, 1, 60*time.Millisecond); got < 2 || got > 3 {
		t.Errorf("refit's max_seqs = %d, want the most the verification runs ran at once, above the parent's 1", got)
	}
}

// refitParentMaxSeqs refits a parent of max_seqs parentSeqs whose ramp's traces
// are gone on verification runs of 16 requests, one every gap, and
// returns the refit's max_seqs.
func refitParentMaxSeqs(t *testing.T, parentSeqs int, gap time.Duration) int {
	t.Helper()
	dir := t.TempDir()
	cfg := refitStub(t)
	parent, err := calibrate.LoadProfile("../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	parent.MaxSeqs = parentSeqs
	parent.Traces = []calibrate.TraceRef{} // the ramp's traces are gone
	tr := writeTrace(t, dir, 16, gap)
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
	return np.MaxSeqs
}
