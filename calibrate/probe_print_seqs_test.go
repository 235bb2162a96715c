package calibrate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// printedLine is the first line of a's printout that starts with prefix.
func printedLine(a *Analysis, prefix string) string {
	var b bytes.Buffer
	a.Print(&b)
	for l := range strings.Lines(b.String()) {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// The printed sequences figure is the one the profile records as
// max_seqs: a decode run above a capped ramp's top ran more at once than
// the ramp, and the line names that run beside the ramp's own limit.
func TestPrintConcurrencyShowsProfileMaxSeqs(t *testing.T) {
	mk := func(name, kind string, c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Name: name, Kind: kind, Concurrency: c}, Rows: rows, Summary: Summarize(rows)}
	}
	runs := []*RunResult{
		mk("decode-c4-p64-r1", KindDecode, 4, row("a", 64, 0, 10, 20, 30), row("b", 64, 0, 10, 20, 30), row("c", 64, 0, 10, 20, 30), row("d", 64, 0, 10, 20, 30)),
		mk("memory-c1-r1", KindMemory, 1, row("a", 512, 0, 10, 20, 30)),
		mk("memory-c2-r1", KindMemory, 2, row("a", 512, 0, 10, 20, 30), row("b", 512, 0, 10, 20, 30)),
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	line := printedLine(a, "  max concurrent sequences")
	recorded := a.Profile(EngineInfo{}, nil, time.Now()).MaxSeqs
	for _, want := range []string{"max concurrent sequences 4 ", "run decode-c4-p64-r1", "max_seqs", "the ramp's 2"} {
		if !strings.Contains(line, want) {
			t.Errorf("printed %q\nwant it to hold %q (the profile records max_seqs %d)", line, want, recorded)
		}
	}

	// Where the ramp ran the most, it is named and no other figure is.
	a.Runs, a.Concurrency = runs[1:], ProbeConcurrency(runs[1:])
	line = printedLine(a, "  max concurrent sequences")
	if !strings.Contains(line, "max concurrent sequences 2 (") || !strings.Contains(line, "the ramp") || strings.Contains(line, "the ramp's") {
		t.Errorf("printed %q, want the ramp's 2 named as the figure", line)
	}
}

// A decode run that ran more at once than a saturated ramp's peak shows
// the ramp's peak was no limit of sequences: the line calls the figure a
// lower bound and the ramp's peak only what the ramp saturated at.
func TestPrintConcurrencyDecodeAboveSaturatedRamp(t *testing.T) {
	mk := func(name, kind string, c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Name: name, Kind: kind, Concurrency: c}, Rows: rows, Summary: Summarize(rows)}
	}
	decode := mk("decode-c4-p64-r1", KindDecode, 4, row("a", 64, 0, 10, 20, 30), row("b", 64, 0, 10, 20, 30), row("c", 64, 0, 10, 20, 30), row("d", 64, 0, 10, 20, 30))
	// Three clients, two generating at once: the third waited.
	saturated := mk("memory-c3-r1", KindMemory, 3, row("a", 512, 0, 10, 20, 30), row("b", 512, 0, 10, 20, 30), row("c", 512, 0, 40, 50, 60))
	runs := []*RunResult{decode, mk("memory-c1-r1", KindMemory, 1, row("a", 512, 0, 10, 20, 30)), saturated}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	if !a.Concurrency.Saturated || a.Concurrency.MaxSeqs != 2 {
		t.Fatalf("ramp saturated %v at %d, want saturated at 2", a.Concurrency.Saturated, a.Concurrency.MaxSeqs)
	}
	line := printedLine(a, "  max concurrent sequences")
	for _, want := range []string{"max concurrent sequences 4 ", "run decode-c4-p64-r1", "lower bound", "saturated at 2"} {
		if !strings.Contains(line, want) {
			t.Errorf("printed %q\nwant it to hold %q", line, want)
		}
	}
	if strings.Contains(line, "measured limit") {
		t.Errorf("printed %q: the ramp's 2 called a measured limit where 4 ran", line)
	}
}

// On a paged engine, a decode run that ran more at once than the
// saturated ramp's peak shows that peak was not the engine's limit: the
// engine slots line does not call it one.
func TestPrintPagedRampNotLimitBelowDecodeRun(t *testing.T) {
	mk := func(name, kind string, c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Name: name, Kind: kind, Concurrency: c}, Rows: rows, Summary: Summarize(rows)}
	}
	decode := mk("decode-c4-p64-r1", KindDecode, 4, row("a", 64, 0, 10, 20, 30), row("b", 64, 0, 10, 20, 30), row("c", 64, 0, 10, 20, 30), row("d", 64, 0, 10, 20, 30))
	saturated := mk("memory-c3-r1", KindMemory, 3, row("a", 512, 0, 10, 20, 30), row("b", 512, 0, 10, 20, 30), row("c", 512, 0, 40, 50, 60))
	runs := []*RunResult{decode, saturated}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs), PagedBy: `engine "vllm"`}
	line := printedLine(a, "engine slots:")
	if strings.Contains(line, "limit of 2") {
		t.Errorf("printed %q: the ramp's 2 called the engine's limit where 4 ran", line)
	}
	for _, want := range []string{"saturated at 2", "4 ran in run decode-c4-p64-r1"} {
		if !strings.Contains(line, want) {
			t.Errorf("printed %q\nwant it to hold %q", line, want)
		}
	}

	// Where nothing ran more, the ramp's peak is its limit.
	a.Runs, a.Concurrency = runs[1:], ProbeConcurrency(runs[1:])
	if line := printedLine(a, "engine slots:"); !strings.Contains(line, "the ramp's limit of 2 sequences is its own") {
		t.Errorf("printed %q, want the ramp's limit of 2 named", line)
	}
}

// The knee clause reads as a sentence whether or not a knee was seen, and
// counts the points it left out in the right number.
func TestPrintConcurrencyKneeWords(t *testing.T) {
	mk := func(name string, c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Name: name, Kind: KindMemory, Concurrency: c}, Rows: rows, Summary: Summarize(rows)}
	}
	failed := row("b", 512, 0, 10, 20, 30)
	failed.HTTPStatus, failed.Error = 500, "http 500"
	runs := []*RunResult{
		mk("memory-c1-r1", 1, row("a", 512, 0, 10, 20, 30)),
		mk("memory-c2-r1", 2, row("a", 512, 0, 10, 20, 30), failed),
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	line := printedLine(a, "  max concurrent sequences")
	if !strings.Contains(line, "knee not seen (1 point with failed or early-stopped requests left out)") {
		t.Errorf("printed %q, want the knee not seen and 1 point left out", line)
	}
}

// A ramp point's note counts its failed or early-stopped requests in the
// right number.
func TestPrintProbePointOneFailed(t *testing.T) {
	failed := row("b", 512, 0, 10, 20, 30)
	failed.HTTPStatus, failed.Error = 500, "http 500"
	rows := []*traces.Request{row("a", 512, 0, 10, 20, 30), failed}
	runs := []*RunResult{{Spec: RunSpec{Name: "memory-c2-r1", Kind: KindMemory, Concurrency: 2}, Rows: rows, Summary: Summarize(rows)}}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	line := printedLine(a, "  clients   2:")
	if !strings.HasSuffix(line, "(1 request failed: not a limit)\n") {
		t.Errorf("printed %q, want it to end \"(1 request failed: not a limit)\"", line)
	}
}

// A ramp whose every request failed ran no sequence: the line says so
// rather than give the ramp a peak of 0 that "never exceeded" a limit.
func TestPrintConcurrencyRampAllFailed(t *testing.T) {
	failed := row("a", 512, 0, 10, 20, 30)
	failed.HTTPStatus, failed.Error = 500, "http 500"
	decode := []*traces.Request{row("a", 64, 0, 10, 20, 30), row("b", 64, 0, 10, 20, 30)}
	runs := []*RunResult{
		{Spec: RunSpec{Name: "decode-c2-p64-r1", Kind: KindDecode, Concurrency: 2}, Rows: decode, Summary: Summarize(decode)},
		{Spec: RunSpec{Name: "memory-c1-r1", Kind: KindMemory, Concurrency: 1}, Rows: []*traces.Request{failed}, Summary: Summarize([]*traces.Request{failed})},
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	line := printedLine(a, "  max concurrent sequences")
	if strings.Contains(line, "the ramp's 0") || !strings.Contains(line, "lower bound: no ramp request generated a token") {
		t.Errorf("printed %q, want the ramp said to have run none", line)
	}
}

// A knee at one client counts it in the singular.
func TestPrintConcurrencyKneeAtOneClient(t *testing.T) {
	mk := func(c int, tokPerSec float64, ttft time.Duration, rows ...*traces.Request) *RunResult {
		s := Summarize(rows)
		s.OutputTokensPerSec, s.TTFT.Mean = tokPerSec, ttft
		return &RunResult{Spec: RunSpec{Name: fmt.Sprintf("memory-c%d-r1", c), Kind: KindMemory, Concurrency: c}, Rows: rows, Summary: s}
	}
	runs := []*RunResult{
		mk(1, 100, 10*time.Millisecond, row("a", 512, 0, 10, 20, 30)),
		mk(2, 105, 30*time.Millisecond, row("a", 512, 0, 10, 20, 30), row("b", 512, 0, 40, 50, 60)), // b waited for a's slot
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	if line := printedLine(a, "  max concurrent sequences"); !strings.HasSuffix(line, "knee at 1 client\n") {
		t.Errorf("printed %q, want it to end \"knee at 1 client\"", line)
	}
}
