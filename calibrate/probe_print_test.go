package calibrate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// The printed KV figure is the one the profile records as
// kv.max_concurrent_tokens: the most any run on the engine held, which a
// decode run of long prompts may set above the ramp's peak; the line names
// that run.
func TestPrintConcurrencyShowsProfileKVTokens(t *testing.T) {
	mk := func(name, kind string, c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Name: name, Kind: kind, Concurrency: c}, Rows: rows, Summary: Summarize(rows)}
	}
	runs := []*RunResult{
		mk("decode-c2-p1024-r1", KindDecode, 2, row("a", 1024, 0, 10, 20, 30), row("b", 1024, 0, 10, 20, 30)),
		mk("memory-c1-r1", KindMemory, 1, row("a", 512, 0, 10, 20, 30)),
		mk("memory-c2-r1", KindMemory, 2, row("a", 512, 0, 10, 20, 30), row("b", 512, 0, 10, 20, 30)),
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	var b bytes.Buffer
	a.Print(&b)
	var line string
	for l := range strings.Lines(b.String()) {
		if strings.HasPrefix(l, "  max concurrent tokens") {
			line = l
		}
	}
	for _, want := range []string{"max concurrent tokens 2054 ", "decode-c2-p1024-r1", "kv.max_concurrent_tokens", "ramp's peak 1030"} {
		if !strings.Contains(line, want) {
			t.Errorf("printed %q\nwant it to hold %q", line, want)
		}
	}
}
