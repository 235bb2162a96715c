package calibrate

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A ramp point whose requests failed (an engine that fell over, a client
// timeout) ran fewer sequences than it had clients because they failed,
// not because they waited for a slot: it is no evidence of a limit, and a
// paged engine is not taken for one with fixed slots (which would turn on
// the resident-token terms and replay a slot cache that it does not have).
func TestProbeConcurrencyFailedPointIsNoLimit(t *testing.T) {
	failed := func(id string) *traces.Request {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.PromptTokens = id, 512
		r.ScheduledSend, r.ActualSend = 0, 0
		r.Error, r.HTTPStatus = "connection refused", 0
		return r
	}
	mk := func(c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Kind: KindMemory, Concurrency: c}, Rows: rows, Summary: Summarize(rows)}
	}
	runs := []*RunResult{
		mk(1, row("a", 512, 0, 10, 20)),
		mk(2, row("a", 512, 0, 10, 20), row("b", 512, 0, 11, 21)),
		mk(3, failed("a"), failed("b"), failed("c")),
		mk(4, row("a", 512, 0, 10, 20), row("b", 512, 0, 11, 21), row("c", 512, 0, 12, 22), failed("d")),
	}
	p := ProbeConcurrency(runs)
	if p.Saturated || p.MaxSeqs != 3 {
		t.Errorf("probe: saturated %v, max seqs %d; want a lower bound of 3 (every point that ran fewer failed)", p.Saturated, p.MaxSeqs)
	}
}
