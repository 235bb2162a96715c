package calibrate

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// The measured KV capacity is a lower bound: the most tokens the engine
// was seen holding at once. A decode run of long prompts held more than
// the ramp's short ones (full: 16 × 2,176 tokens against 32 × 544), and
// that is as much a measurement; a run on an engine of its own (a
// verification run, Slots > 0) measured another engine and is left out.
func TestProfileKVTakesTheMostAnyRunHeld(t *testing.T) {
	mk := func(kind string, c, slots int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Kind: kind, Concurrency: c}, Slots: slots, Rows: rows, Summary: Summarize(rows)}
	}
	runs := []*RunResult{
		mk(KindDecode, 4, 0, row("a", 1024, 0, 10, 20, 30), row("b", 1024, 0, 10, 20, 30), row("c", 1024, 0, 10, 20, 30), row("d", 1024, 0, 10, 20, 30)),
		mk(KindMemory, 1, 0, row("a", 512, 0, 10, 20, 30)),
		mk(KindMemory, 2, 0, row("a", 512, 0, 10, 20, 30), row("b", 512, 0, 10, 20, 30)),
		mk(KindVerify, 2, 8, row("a", 9000, 0, 10, 20, 30), row("b", 9000, 0, 10, 20, 30)),
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}, Concurrency: ProbeConcurrency(runs)}
	p := a.Profile(EngineInfo{}, nil, time.Now())
	if p.KV == nil || p.KV.MaxConcurrentTokens != 4*1027 {
		t.Errorf("KV %+v, want the decode run's 4 × (1024 + 3) tokens (not the ramp's %d, nor the verification engine's)", p.KV, a.Concurrency.MaxTokens)
	}
}
