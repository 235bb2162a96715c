package calibrate

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A ramp capped below the plan's decode runs (--max-concurrency 2 against
// decode at 4 clients) did not run the most sequences the fit measured:
// the profile's max_seqs, up to which decode terms count as measured, is
// the most any fitted run ran at once, not the ramp's 2.
func TestProfileMaxSeqsCoversDecodeRunsAboveTheRamp(t *testing.T) {
	mk := func(kind string, c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Kind: kind, Concurrency: c}, Rows: rows, Summary: Summarize(rows)}
	}
	runs := []*RunResult{
		mk(KindDecode, 4, row("a", 64, 0, 10, 20, 30), row("b", 64, 0, 10, 20, 30), row("c", 64, 0, 10, 20, 30), row("d", 64, 0, 10, 20, 30)),
		mk(KindMemory, 1, row("a", 512, 0, 10, 20, 30)),
		mk(KindMemory, 2, row("a", 512, 0, 10, 20, 30), row("b", 512, 0, 10, 20, 30)),
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}, Concurrency: ProbeConcurrency(runs)}
	if got := a.Profile(EngineInfo{}, nil, time.Now()).MaxSeqs; got != 4 {
		t.Errorf("max_seqs %d, want 4: the decode run ran four sequences at once", got)
	}
	if a.Concurrency.MaxSeqs != 2 {
		t.Errorf("the ramp's own limit %d, want 2", a.Concurrency.MaxSeqs)
	}
}
