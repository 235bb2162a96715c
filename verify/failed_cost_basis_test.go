package verify

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// A candidate simulated but not measured still says what its predicted
// usd_per_m_out holds, and holds it on the basis a measured candidate
// without energy has: hardware alone, not the simulator's hardware +
// energy with no cost_basis to tell.
func TestFailedCandidateStatesItsCostBasis(t *testing.T) {
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: time.Millisecond, ITL: time.Millisecond, Status: http.StatusBadRequest,
		Fault: func(n int) replaytest.Fault {
			if n < len(replay.ProbeBytes) {
				return replaytest.OK
			}
			return replaytest.Status
		}})
	t.Cleanup(srv.Close)
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "stub", "SERVESIM_NO_KEY"
	cfg.Timeout = 10 * time.Second
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
