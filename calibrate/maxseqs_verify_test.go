package calibrate

import (
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A verification run folded in by a refit ran on an engine of its own
// (Slots > 0): its sequences count in max_seqs, the range the decode
// terms were measured over, but say nothing of the calibrated engine's
// limit, which, as Slots, is read off the runs on that engine alone.
func TestVerifyRunCountsInMaxSeqsNotTheEngineLimit(t *testing.T) {
	mk := func(name, kind string, c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Name: name, Kind: kind, Concurrency: c}, Rows: rows, Summary: Summarize(rows)}
	}
	verify := mk("rank01", KindVerify, 4, row("a", 64, 0, 10, 20, 30), row("b", 64, 0, 10, 20, 30), row("c", 64, 0, 10, 20, 30), row("d", 64, 0, 10, 20, 30))
	verify.Slots = 4
	// Three clients, two generating at once: the third waited.
	saturated := mk("memory-c3-r1", KindMemory, 3, row("a", 512, 0, 10, 20, 30), row("b", 512, 0, 10, 20, 30), row("c", 512, 0, 40, 50, 60))
	runs := []*RunResult{mk("memory-c1-r1", KindMemory, 1, row("a", 512, 0, 10, 20, 30)), saturated, verify}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	if !a.Concurrency.Saturated || a.Concurrency.MaxSeqs != 2 {
		t.Fatalf("ramp saturated %v at %d, want saturated at 2", a.Concurrency.Saturated, a.Concurrency.MaxSeqs)
	}
	if got := a.Profile(EngineInfo{}, nil, time.Now()).MaxSeqs; got != 4 {
		t.Errorf("max_seqs %d, want 4: the verification run's decode steps were fitted", got)
	}
	line := printedLine(a, "  max concurrent sequences")
	for _, want := range []string{"max concurrent sequences 4 ", "run rank01",
		"the profile's max_seqs, higher than this engine's 2 (a measured limit) because a verification run's own engine ran more)"} {
		if !strings.Contains(line, want) {
			t.Errorf("printed %q\nwant it to hold %q", line, want)
		}
	}
	if strings.Contains(line, "lower bound") {
		t.Errorf("printed %q: the calibrated engine's saturated ramp is its limit, not a lower bound", line)
	}
	a.PagedBy = `engine "vllm"`
	if got := a.pagedLimit(); !strings.Contains(got, "limit of 2 sequences is its own") {
		t.Errorf("paged limit %q, want the ramp's 2 as the engine's own", got)
	}
}
