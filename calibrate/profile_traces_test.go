package calibrate

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
)

// A profile cites every run its fit replayed, in order and with its kind:
// the warm-up and slot resets too, whose tokens a slot engine's cache
// holds when the measured runs start. Refitting from the cited traces, as
// verify --refit does, then replays the same runs and gives the same fit.
func TestProfileCitesEveryReplayedRun(t *testing.T) {
	dir := t.TempDir()
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	var runs []*RunResult
	t0 := int64(0)
	add := func(kind string, clients int, prompts []int, out int) {
		var r *RunResult
		r, t0 = serialRun(kind, clients, prompts, out, t0)
		r.Spec.Name = fmt.Sprintf("%s-%d", r.Spec.Name, len(runs)) // unique, as a plan's are
		r.SlotReset = 300
		path := filepath.Join(dir, fmt.Sprintf("%02d-%s.parquet", len(runs), r.Spec.Name))
		if err := writeRun(path, traces.Meta{Model: "m"}, r, replay.TextModel{TokensPerByte: 1, Overhead: 20}); err != nil {
			t.Fatal(err)
		}
		ref, err := NewTraceRef(path)
		if err != nil {
			t.Fatal(err)
		}
		r.Trace = &ref
		runs = append(runs, r)
	}
	add(KindWarmup, 1, prompts[:1], 4)
	add(KindPrefill, 1, prompts, 24)
	add(KindReset, 1, prompts[:1], 1)
	add(KindDecode, 1, prompts, 24)
	add(KindReset, 1, prompts[:1], 1)
	add(KindMemory, 1, prompts[:2], 16)
	add(KindMemory, 2, prompts[:4], 16)
	a, err := Analyze(runs, AnalyzeOptions{Relative: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Slots != 1 {
		t.Fatalf("slots %d, want the ramp's limit of 1 (a slot engine)", a.Slots)
	}
	p := a.Profile(EngineInfo{Engine: "e", Model: "m"}, nil, time.Now())
	var kinds, wantKinds []string
	for i, ref := range p.Traces {
		kinds = append(kinds, ref.Kind)
		if i < len(runs) && ref.Path != runs[i].Trace.Path {
			t.Errorf("traces[%d] = %s, want %s", i, ref.Path, runs[i].Trace.Path)
		}
	}
	for _, r := range runs {
		wantKinds = append(wantKinds, r.Spec.Kind)
	}
	if !slices.Equal(kinds, wantKinds) {
		t.Fatalf("profile cites runs of kinds %v, want every run replayed: %v", kinds, wantKinds)
	}
	var again []*RunResult
	for _, ref := range p.Traces {
		r, err := ReadRun(ref.Path)
		if err != nil {
			t.Fatal(err)
		}
		again = append(again, r)
	}
	b, err := Analyze(again, AnalyzeOptions{Relative: true})
	if err != nil {
		t.Fatal(err)
	}
	for term := range Term(NumTerms) {
		x, y := a.Fit.Step.At(term), b.Fit.Step.At(term)
		if x.Status != y.Status || x.Value != y.Value {
			t.Errorf("%s: refit from the cited traces gives %g (%s), the fit gave %g (%s)", term, y.Value, y.Status, x.Value, x.Status)
		}
	}
}
