package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// Simulating a recorded trace replaces its observations: a live run's
// failure time does not stay on the simulated row (a success with one
// is no valid row).
func TestSimulatedRowDropsLiveFailureTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Policy = policy(t, Serial)
	cfg.TotalBlocks = 100
	cfg.Step = testTimer
	a := req("a", 0, 10, 3)
	a.ActualSend, a.HTTPStatus, a.Error, a.FailTime = 0, 200, "stream: connection reset", 5e6
	w := &memWriter{}
	if _, err := Run(t.Context(), cfg, newSliceReader([]*traces.Request{a}), w); err != nil {
		t.Fatal(err)
	}
	if r := w.byID["a"]; r.Error != "" || r.FailTime != traces.Missing {
		t.Errorf("simulated row: error %q, failed_ns %d; want a success without failed_ns", r.Error, r.FailTime)
	}
}
