package calibrate

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A ramp whose every request failed held no tokens, but a decode run on
// the same engine did: that run's peak is still a measured lower bound on
// the KV capacity, and the printed line names it rather than an empty run.
func TestHeldKVWhenTheRampHeldNone(t *testing.T) {
	mk := func(name, kind string, c int, rows ...*traces.Request) *RunResult {
		return &RunResult{Spec: RunSpec{Name: name, Kind: kind, Concurrency: c}, Rows: rows, Summary: Summarize(rows)}
	}
	failed := row("a", 512, 0, 10, 20, 30)
	failed.Error, failed.HTTPStatus = "http_500", 500
	runs := []*RunResult{
		mk("decode-c2-p1024-r1", KindDecode, 2, row("a", 1024, 0, 10, 20, 30), row("b", 1024, 0, 10, 20, 30)),
		mk("memory-c1-r1", KindMemory, 1, failed),
	}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	if a.Concurrency == nil || a.Concurrency.MaxTokens != 0 {
		t.Fatalf("probe %+v: want one point holding no tokens", a.Concurrency)
	}
	if p := a.Profile(EngineInfo{}, nil, time.Now()); p.KV == nil || p.KV.MaxConcurrentTokens != 2054 {
		t.Errorf("KV %+v, want the decode run's 2 × (1024 + 3) tokens", p.KV)
	}
	var b bytes.Buffer
	a.Print(&b)
	var line string
	for l := range strings.Lines(b.String()) {
		if strings.HasPrefix(l, "  max concurrent tokens") {
			line = l
		}
	}
	if !strings.Contains(line, "max concurrent tokens 2054 (held in run decode-c2-p1024-r1;") {
		t.Errorf("printed %q\nwant the decode run's 2054 tokens, naming it", line)
	}
}

// With no run holding any tokens the line says none was measured, and
// the profile records no KV capacity.
func TestHeldKVWhenNoRunHeldAny(t *testing.T) {
	failed := row("a", 512, 0, 10, 20, 30)
	failed.Error, failed.HTTPStatus = "http_500", 500
	runs := []*RunResult{{Spec: RunSpec{Name: "memory-c1-r1", Kind: KindMemory, Concurrency: 1}, Rows: []*traces.Request{failed},
		Summary: Summarize([]*traces.Request{failed})}}
	a := &Analysis{Runs: runs, Fit: &Fit{}, HeldOut: &HeldOut{}, Concurrency: ProbeConcurrency(runs)}
	if p := a.Profile(EngineInfo{}, nil, time.Now()); p.KV != nil {
		t.Errorf("KV %+v, want none", p.KV)
	}
	var b bytes.Buffer
	a.Print(&b)
	if !strings.Contains(b.String(), "  max concurrent tokens not measured") {
		t.Errorf("printed:\n%s\nwant the KV line to say none was measured", b.String())
	}
}
