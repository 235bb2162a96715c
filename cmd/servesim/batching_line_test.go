package main

import (
	"testing"

	"github.com/servesim/servesim/sim"
)

// The batching line gives rates only where summary.json does: over a
// window with length in which something completed.
func TestBatchingLineGivesRatesOnlyOverCompletions(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    sim.Summary
		want string
	}{
		{"no window", sim.Summary{}, "— (no time elapsed: nothing ran)"},
		{"held to an OOM", sim.Summary{Makespan: 0.1, Utilization: 0.5, OutputTokPerSec: 0, ReqPerSec: 0},
			"— output tok/s, — req/s (nothing completed), device busy 50%"},
		{"completions", sim.Summary{Makespan: 2, Completed: 4, Utilization: 0.25, OutputTokPerSec: 120, ReqPerSec: 2},
			"120 output tok/s, 2.0 req/s, device busy 25%"},
		// A slow trace's completions are not "0.0 req/s", none.
		{"slow completions", sim.Summary{Makespan: 800, Completed: 4, Utilization: 0.25, OutputTokPerSec: 0.4, ReqPerSec: 0.005},
			"0.4 output tok/s, 0.005 req/s, device busy 25%"},
		// A device busy a fraction of a percent did work: not "0%".
		{"barely busy", sim.Summary{Makespan: 2, Completed: 4, Utilization: 0.003, OutputTokPerSec: 120, ReqPerSec: 2},
			"120 output tok/s, 2.0 req/s, device busy 0.3%"},
		{"barely busy, held to an OOM", sim.Summary{Makespan: 0.1, Utilization: 0.003},
			"— output tok/s, — req/s (nothing completed), device busy 0.3%"},
	} {
		if got := batchingLine(&tc.s); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
