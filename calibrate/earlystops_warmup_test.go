package calibrate

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// The warm-up is not measured, so its outputs have no planned shape to
// lose: one that stopped at EOS is no early stop of the plan's runs.
func TestEarlyStopsLeaveTheWarmupOut(t *testing.T) {
	long, short := row("warmup/0", 4095, 0, 10), row("warmup/1", 64, 20, 30, 31, 32)
	short.OutputTokens = 8 // asked for 8, stopped at EOS after 3
	for _, r := range []*traces.Request{long, short} {
		r.Warmup = true
	}
	run := &RunResult{Spec: WarmupRun(4095), Rows: []*traces.Request{long, short}}
	if n, ok := run.EarlyStops(); n != 0 || ok != 0 {
		t.Errorf("warm-up: %d of %d requests counted as stopped early, want none of none", n, ok)
	}
}
