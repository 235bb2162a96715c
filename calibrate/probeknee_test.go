package calibrate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
)

// A ramp point with failed requests lost their tokens and their TTFTs: its
// throughput and TTFT are no evidence of a knee, and the knee is read off
// the points without failures.
func TestProbeConcurrencyKneeSkipsFailedPoint(t *testing.T) {
	mk := func(c int, tokPerSec float64, ttft time.Duration, failed int) *RunResult {
		s := &replay.Summary{OutputTokensPerSec: tokPerSec, Failed: failed}
		s.TTFT.Mean = ttft
		return &RunResult{Spec: RunSpec{Kind: KindMemory, Concurrency: c}, Summary: s}
	}
	runs := []*RunResult{
		mk(1, 100, 10*time.Millisecond, 0),
		mk(2, 200, 10*time.Millisecond, 0),
		mk(4, 150, 40*time.Millisecond, 3), // 3 requests timed out
		mk(8, 400, 12*time.Millisecond, 0),
	}
	if p := ProbeConcurrency(runs); p.Knee != 0 {
		t.Errorf("knee at %d clients, want none: only the point with failures looked like one", p.Knee)
	}
	// A clean point that stops gaining after a failed one is compared with
	// the clean point before it.
	runs[3] = mk(8, 210, 30*time.Millisecond, 0)
	if p := ProbeConcurrency(runs); p.Knee != 2 {
		t.Errorf("knee at %d clients, want 2", p.Knee)
	}
}

// A ramp point whose outputs ended before their max_tokens generated fewer
// tokens than its clients asked for: its throughput falls short for that,
// not for want of engine slots, so it is no evidence of a knee either.
func TestProbeConcurrencyKneeSkipsEarlyStoppedPoint(t *testing.T) {
	mk := func(c int, tokPerSec float64, ttft time.Duration, stopped int) *RunResult {
		s := &replay.Summary{OutputTokensPerSec: tokPerSec}
		s.TTFT.Mean = ttft
		var rows []*traces.Request
		for i := range c {
			r := row(fmt.Sprint(i), 512, 0, 10, 20, 30)
			if i < stopped {
				r.OutputTokens = 32 // asked for; the engine stopped at EOS
			}
			rows = append(rows, r)
		}
		return &RunResult{Spec: RunSpec{Kind: KindMemory, Concurrency: c}, Rows: rows, Summary: s}
	}
	runs := []*RunResult{
		mk(1, 100, 10*time.Millisecond, 0),
		mk(2, 200, 10*time.Millisecond, 0),
		mk(4, 150, 40*time.Millisecond, 3), // 3 outputs stopped early
		mk(8, 400, 12*time.Millisecond, 0),
	}
	if p := ProbeConcurrency(runs); p.Knee != 0 {
		t.Errorf("knee at %d clients, want none: only the point with early-stopped outputs looked like one", p.Knee)
	}
	runs[3] = mk(8, 210, 30*time.Millisecond, 0)
	waitLast(runs[3])
	if p := ProbeConcurrency(runs); p.Knee != 2 {
		t.Errorf("knee at %d clients, want 2", p.Knee)
	}
}

// waitLast makes r's last client wait for a slot: it generates only after
// the others ended.
func waitLast(r *RunResult) {
	r.Rows[len(r.Rows)-1] = row("late", 512, 0, 40, 50, 60)
}

// The knee marks where the ramp runs out of engine slots: a point whose
// every client generated at once waited for no slot, however flat its
// throughput and long its TTFT (prefills queued behind each other), so it
// sets no knee beside a ramp that never reached the engine's limit.
func TestProbeConcurrencyKneeNeedsAWait(t *testing.T) {
	mk := func(c int, tokPerSec float64, ttft time.Duration, waited bool) *RunResult {
		s := &replay.Summary{OutputTokensPerSec: tokPerSec}
		s.TTFT.Mean = ttft
		var rows []*traces.Request
		for i := range c {
			rows = append(rows, row(fmt.Sprint(i), 512, 0, 10, 20, 30))
		}
		r := &RunResult{Spec: RunSpec{Name: fmt.Sprintf("memory-c%d-r1", c), Kind: KindMemory, Concurrency: c}, Rows: rows, Summary: s}
		if waited {
			waitLast(r)
		}
		return r
	}
	runs := []*RunResult{mk(1, 100, 10*time.Millisecond, false), mk(2, 105, 30*time.Millisecond, false)}
	p := ProbeConcurrency(runs)
	if p.Saturated || p.Knee != 0 {
		t.Errorf("saturated %v, knee at %d clients: want neither, every client generated at once", p.Saturated, p.Knee)
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: p}
	if line := printedLine(a, "  max concurrent sequences"); strings.Contains(line, "knee at") {
		t.Errorf("printed %q: a knee beside a ramp that never reached the limit", line)
	}
	// Where the point past it had a client wait, the knee stands.
	runs[1] = mk(2, 105, 30*time.Millisecond, true)
	if p := ProbeConcurrency(runs); !p.Saturated || p.Knee != 1 {
		t.Errorf("saturated %v, knee at %d clients: want saturated with the knee at 1", p.Saturated, p.Knee)
	}
}
