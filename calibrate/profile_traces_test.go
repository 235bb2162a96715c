package calibrate

import (
	"fmt"
	"math"
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

// Refitting from a profile's cited traces, read back as verify --refit
// reads them (ReadCitedRun), gives the fit's coefficients: every run is
// replayed in the role the fit gave it. A verification run, which had an
// engine of its own with the candidate's slots and whose trace carries no
// calibration metadata (a refitted profile cites it), is replayed on a
// fresh cache of those slots, not as a mixed run on the calibration's.
func TestRefitFromCitedTracesGivesTheFit(t *testing.T) {
	dir := t.TempDir()
	prompts := []int{32, 64, 128, 256, 32, 64, 128, 256}
	var runs []*RunResult
	t0 := int64(0)
	save := func(r *RunResult, write func(path string) error) {
		r.Spec.Name = fmt.Sprintf("%s-%d", r.Spec.Name, len(runs))
		path := filepath.Join(dir, fmt.Sprintf("%02d-%s.parquet", len(runs), r.Spec.Name))
		if err := write(path); err != nil {
			t.Fatal(err)
		}
		ref, err := NewTraceRef(path)
		if err != nil {
			t.Fatal(err)
		}
		r.Trace = &ref
		runs = append(runs, r)
	}
	add := func(kind string, clients int, prompts []int, out int) {
		var r *RunResult
		r, t0 = serialRun(kind, clients, prompts, out, t0)
		r.SlotReset = 300
		save(r, func(path string) error {
			return writeRun(path, traces.Meta{Model: "m"}, r, replay.TextModel{TokensPerByte: 1, Overhead: 20})
		})
	}
	// A verification run: an engine of its own batched n requests up to
	// its slots, its decode steps slowing with the context they attend
	// over, so that where its tokens lay in the cache shows in the fit.
	// Its trace is the replay's, without calibration metadata.
	addVerify := func(n, slots int) {
		slow := [NumTerms]float64{4e-3, 6e-5, 2e-9, 8e-5, 2e-6}
		rows, _ := tinyEngine(workload(n, 20, uint64(len(runs))), genConfig{coef: slow, maxSeqs: slots, seed: uint64(len(runs))})
		r := &RunResult{Spec: RunSpec{Name: "verify", Kind: "verify"}, Rows: rows, Summary: Summarize(rows), Slots: slots}
		save(r, func(path string) error { return traces.WriteAll(path, traces.Meta{Model: "m"}, rows) })
	}
	add(KindWarmup, 1, prompts[:1], 4)
	add(KindPrefill, 1, prompts, 24)
	add(KindReset, 1, prompts[:1], 1)
	add(KindDecode, 1, prompts, 24)
	add(KindReset, 1, prompts[:1], 1)
	add(KindMemory, 1, prompts[:2], 16)
	add(KindMemory, 2, prompts[:4], 16)
	addVerify(16, 4)
	addVerify(12, 2)
	a, err := Analyze(runs, AnalyzeOptions{Relative: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Slots != 1 {
		t.Fatalf("slots %d, want the ramp's limit of 1 (a slot engine)", a.Slots)
	}
	// Through the file, as verify reads the profile.
	path := filepath.Join(dir, "p.json")
	if err := a.Profile(EngineInfo{Engine: "e", Model: "m"}, nil, time.Now()).Save(path); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	var again []*RunResult
	for _, ref := range p.Traces {
		r, err := ReadCitedRun(ref.Path, ref)
		if err != nil {
			t.Fatal(err)
		}
		if want := runs[len(again)]; r.Spec.Kind != want.Spec.Kind || r.Slots != want.Slots {
			t.Errorf("%s read back as a %s run with %d slots, want %s with %d", ref.Path, r.Spec.Kind, r.Slots, want.Spec.Kind, want.Slots)
		}
		again = append(again, r)
	}
	b, err := Analyze(again, AnalyzeOptions{Relative: true})
	if err != nil {
		t.Fatal(err)
	}
	for term := range Term(NumTerms) {
		x, y := a.Fit.Step.At(term), b.Fit.Step.At(term)
		if x.Status != y.Status || math.Abs(x.Value-y.Value) > 1e-9*math.Abs(x.Value)+1e-15 {
			t.Errorf("%s: refit from the cited traces gives %g (%s), the fit gave %g (%s)", term, y.Value, y.Status, x.Value, x.Status)
		}
	}
	for i, d := range a.Fit.Step.Dense {
		if e := b.Fit.Step.Dense[i]; d.Status != e.Status || math.Abs(d.Value-e.Value) > 1e-9*math.Abs(d.Value)+1e-15 {
			t.Errorf("dense[%d]: refit from the cited traces gives %g (%s), the fit gave %g (%s)", i, e.Value, e.Status, d.Value, d.Status)
		}
	}
	if x, y := a.Fit.Quality, b.Fit.Quality; x.N != y.N || math.Abs(x.RMSE-y.RMSE) > 1e-9*x.RMSE {
		t.Errorf("quality %+v after the refit, %+v before", y, x)
	}
}

// A profile written before traces had kinds cites only the fitted runs,
// with no kind: each is read in the kind its trace's metadata gives, and
// a trace without one (a verification run's) as a mixed run named after
// its file.
func TestReadCitedRunWithoutKind(t *testing.T) {
	dir := t.TempDir()
	r, _ := serialRun(KindDecode, 1, []int{32, 64}, 8, 0)
	cal, ver := filepath.Join(dir, "03-decode-c1.parquet"), filepath.Join(dir, "rank01.parquet")
	if err := writeRun(cal, traces.Meta{}, r, replay.TextModel{TokensPerByte: 1}); err != nil {
		t.Fatal(err)
	}
	if err := traces.WriteAll(ver, traces.Meta{}, r.Rows); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][2]string{cal: {KindDecode, "decode-c1"}, ver: {KindMixed, "rank01.parquet"}} {
		ref, err := NewTraceRef(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadCitedRun(path, ref)
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.Kind != want[0] || got.Spec.Name != want[1] || got.Slots != 0 || len(got.Rows) != 2 {
			t.Errorf("%s: kind %q, name %q, slots %d, %d rows; want %q, %q, 0, 2", path, got.Spec.Kind, got.Spec.Name, got.Slots, len(got.Rows), want[0], want[1])
		}
	}
}
