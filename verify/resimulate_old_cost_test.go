package verify

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/model"
)

// A verify.json written before the hardware cost was kept beside
// usd_per_m_out has its hardware cost there alone: a refit's
// re-simulation still compares its cost.
func TestResimulateComparesTheCostOfAnOlderResult(t *testing.T) {
	dir := t.TempDir()
	opt := Options{Candidates: candidates(4), Trace: writeTrace(t, dir, 8, 10*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	// As an older file reads: no cost_basis, no usd_per_m_out_hardware.
	c := &res.Candidates[0]
	c.CostBasis, c.Predicted.USDPerMOutHardware, c.Measured.USDPerMOutHardware = "", nil, nil
	opt.Catalog = model.DefaultCatalog()
	again, err := resimulate(context.Background(), res, opt, "same", new([]error), func(CandidateResult) (*calibrate.Profile, string, string) { return nil, "", "" })
	if err != nil {
		t.Fatal(err)
	}
	for j, r := range again[0].Rows {
		if w := c.Rows[j]; r.Metric == MetricCost && (r.RelError == nil || fmtOpt(r.Measured) != fmtOpt(w.Measured)) {
			t.Errorf("%s re-simulated: measured %s, error %s: want measured %s compared", r.Metric, fmtOpt(r.Measured), fmtOpt(r.RelError), fmtOpt(w.Measured))
		}
	}
}
