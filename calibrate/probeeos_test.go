package calibrate

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A ramp point whose requests stopped at EOS long before their max_tokens
// ran fewer sequences at once because they ended early, not because they
// waited for a slot: an engine that computes one prompt a step, with
// requests that stop after three tokens, never has four generating at
// once. The point is no evidence of a limit, and the engine is not taken
// for one with two fixed slots.
func TestProbeConcurrencyEarlyStoppedPointIsNoLimit(t *testing.T) {
	short := func(r *traces.Request) *traces.Request {
		r.OutputTokens = 32 // asked for; the engine stopped at EOS
		return r
	}
	mk := func(c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Kind: KindMemory, Concurrency: c, Outputs: []int{32}}, Rows: rows, Summary: Summarize(rows)}
	}
	runs := []*RunResult{
		mk(1, row("a", 512, 0, 10, 20, 30)),
		mk(2, row("a", 512, 0, 10, 20, 30), row("b", 512, 0, 20, 30, 40)),
		mk(4, short(row("a", 512, 0, 10, 20, 30)), short(row("b", 512, 0, 20, 30, 40)),
			short(row("c", 512, 0, 30, 40, 50)), short(row("d", 512, 0, 40, 50, 60))),
	}
	p := ProbeConcurrency(runs)
	if p.Saturated || p.MaxSeqs != 2 {
		t.Errorf("probe: saturated %v, max seqs %d; want a lower bound of 2 (the point that ran fewer stopped at EOS)", p.Saturated, p.MaxSeqs)
	}
}
