package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A candidate whose simulation fails names no simulated trace: not an
// earlier verify's rankNN.sim.parquet left in the output directory, which
// is not this candidate's prediction.
func TestFailedSimulationNamesNoSimTrace(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	stale := filepath.Join(out, "rank01.sim.parquet")
	os.WriteFile(stale, []byte("an earlier verify's"), 0o644)
	cf := candidates(1)
	cf.Candidates[0].RateScale = 1e-12 // arrivals past the simulator's clock
	res, err := Run(context.Background(), Options{Candidates: cf, Trace: writeTrace(t, dir, 3, 10*time.Second), Replay: stubReplay(t),
		Out: out, Tolerances: DefaultTolerances()})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Status != StatusSim {
		t.Fatalf("status %s (%s), want %s", c.Status, c.Detail, StatusSim)
	}
	if c.SimTrace != "" {
		t.Errorf("sim_trace %q (%s): want none, the simulation wrote nothing", c.SimTrace, c.Detail)
	}
}

// cancelOn cancels when a line it is given holds what.
type cancelOn struct {
	what   string
	cancel context.CancelFunc
}

func (c cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.what) {
		c.cancel()
	}
	return len(p), nil
}

// An interrupt while a candidate is simulated cancels it: the candidate
// is canceled, not a simulation that failed.
func TestInterruptDuringSimulationIsCanceled(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Run(ctx, Options{Candidates: candidates(1), Trace: writeTrace(t, dir, 3, 10*time.Second), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), Log: cancelOn{"rate ×", cancel}})
	if err == nil {
		t.Fatal("an interrupted run returned no error")
	}
	if c := res.Candidates[0]; c.Status != StatusCanceled {
		t.Errorf("status %s (%s), want %s", c.Status, c.Detail, StatusCanceled)
	}
}
