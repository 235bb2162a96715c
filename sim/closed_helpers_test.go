package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// serialTestConfig is the one-at-a-time engine the hand-computed
// closed-loop tests time: testTimer's 42 ms for a 10-token prompt and 3
// output tokens, with room for every request.
func serialTestConfig(t testing.TB) Config {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Policy = policy(t, Serial)
	cfg.TotalBlocks = 100
	cfg.Step = testTimer
	return cfg
}

// runClosedLoop runs reqs through cfg under loop, failing the test on an
// error, and returns the summary and the rows.
func runClosedLoop(t testing.TB, cfg Config, loop ClosedLoop, reqs []*traces.Request) (*Summary, *memWriter) {
	t.Helper()
	w := &memWriter{}
	sum, err := RunClosedLoop(t.Context(), cfg, loop, newSliceReader(reqs), w)
	if err != nil {
		t.Fatalf("RunClosedLoop: %v", err)
	}
	return sum, w
}

// runClosed runs reqs under clients clients issuing at once.
func runClosed(t testing.TB, cfg Config, clients int, reqs []*traces.Request) (*Summary, *memWriter) {
	t.Helper()
	return runClosedLoop(t, cfg, ClosedLoop{Clients: clients}, reqs)
}

// liveWindow is the window a live run's tools measure over rows.
func liveWindow(rows []*traces.Request) traces.Window {
	var live traces.Window
	for _, r := range rows {
		live.Add(r)
	}
	return live
}
