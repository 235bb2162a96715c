package verify

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/model"
)

// The refit's re-simulation must simulate each candidate with its own
// plan, even when two candidates share an index (candidates.json does not
// refuse that; ranks are what is unique).
func TestResimulateUsesEachCandidatesPlan(t *testing.T) {
	dir := t.TempDir()
	cf := candidates(1, 8)
	cf.Candidates[1].Index = cf.Candidates[0].Index
	opt := Options{Candidates: cf, Trace: writeTrace(t, dir, 12, 5*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Catalog = model.DefaultCatalog()
	after, err := resimulate(context.Background(), res, opt, "again", new([]error), func(CandidateResult) (*calibrate.Profile, string, string) { return nil, "", "" })
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Candidates {
		for j, r := range c.Rows {
			a := after[i].Rows[j]
			if (r.Predicted == nil) != (a.Predicted == nil) || (r.Predicted != nil && *r.Predicted != *a.Predicted) {
				t.Errorf("%s %s: re-simulated with the same profile %v, predicted %v: want the same plan's figure", c.Label, r.Metric, fmtOpt(a.Predicted), fmtOpt(r.Predicted))
			}
		}
	}
}
