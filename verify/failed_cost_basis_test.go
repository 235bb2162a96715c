package verify

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// A candidate simulated but not measured still says what its predicted
// usd_per_m_out holds, and holds it on the basis a measured candidate
// without energy has: hardware alone, not the simulator's hardware +
// energy with no cost_basis to tell.
func TestFailedCandidateStatesItsCostBasis(t *testing.T) {
	dir := t.TempDir()
	cfg := refusingReplay(t)
	opt := Options{Candidates: candidates(1), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: cfg,
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Status != StatusReplay {
		t.Fatalf("status %s (%s): want %s", c.Status, c.Detail, StatusReplay)
	}
	p := c.Predicted
	if p.USDPerMOut == nil || p.USDPerMOutHardware == nil {
		t.Fatalf("predicted %+v: want the re-simulation's costs", p)
	}
	if c.CostBasis != CostHardware || *p.USDPerMOut != *p.USDPerMOutHardware {
		t.Errorf("cost_basis %q, predicted usd_per_m_out %g (hardware %g): want %q and the hardware cost",
			c.CostBasis, *p.USDPerMOut, *p.USDPerMOutHardware, CostHardware)
	}
}
