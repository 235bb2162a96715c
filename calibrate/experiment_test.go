package calibrate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

func TestRamp(t *testing.T) {
	for top, want := range map[int][]int{1: {1}, 4: {1, 2, 3, 4}, 8: {1, 2, 3, 4, 6, 8}, 20: {1, 2, 3, 4, 6, 8, 12, 16, 20}, 32: {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}} {
		if got := Ramp(top); !slices.Equal(got, want) {
			t.Errorf("Ramp(%d) = %v, want %v", top, got, want)
		}
	}
}

func TestNewPlanQuick(t *testing.T) {
	p, err := NewPlan(PlanQuick, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range p.Runs {
		kinds[r.Kind]++
		rows := r.Rows()
		if len(rows) != r.Requests {
			t.Errorf("%s: %d rows for %d requests", r.Name, len(rows), r.Requests)
		}
		for i, row := range rows {
			out := r.Outputs[i%len(r.Outputs)]
			if i == 0 && r.Carrier > 0 {
				out = r.Carrier
			}
			if int(row.PromptTokens) != r.Prompts[i%len(r.Prompts)] || int(row.OutputTokens) != out || row.Warmup != (r.Kind == KindWarmup) {
				t.Errorf("%s row %d: %+v", r.Name, i, row)
			}
		}
		// A carrier outlasts its probes: each takes a prefill and Output − 1
		// decode steps, plus its admission delay (taken as 3 steps).
		if r.Kind == KindAdmission && r.Carrier < (r.Requests-1)*(r.Outputs[0]+3) {
			t.Errorf("%s: carrier of %d tokens for %d probes of %d", r.Name, r.Carrier, r.Requests-1, r.Outputs[0])
		}
	}
	if kinds[KindWarmup] != 1 || kinds[KindPrefill] != 2 || kinds[KindDecode] != 12 || kinds[KindAdmission] != 2 || kinds[KindMixed] != 1 || kinds[KindMemory] != 6 {
		t.Errorf("run kinds %v", kinds)
	}
	// The warm-up: four decode clients' 1,024-token prompts in one request
	// (with its one output token, 4,096 cells), then a short one.
	if w := p.Runs[0]; w.Kind != KindWarmup || !slices.Equal(w.Prompts, []int{4095, 64}) || !slices.Equal(w.Outputs, []int{1, 8}) || w.Concurrency != 1 {
		t.Errorf("the plan opens with %+v, want its warm-up: 4095 then 64 prompt tokens, one at a time", w)
	}
	if slices.Contains(p.PromptLengths(), 4095) {
		t.Errorf("prompt lengths %v include the warm-up's", p.PromptLengths())
	}
	var b bytes.Buffer
	p.Print(&b)
	for _, want := range []string{"plan quick", "prefill-r1", "32,128,256,512,1024", "memory-c8-r1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("printed plan lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := NewPlan("huge", PlanOptions{}); err == nil {
		t.Error("unknown plan: no error")
	}
	capped, _ := NewPlan(PlanFull, PlanOptions{MaxPrompt: 300, MaxConcurrency: 5, Repeats: 1})
	for _, n := range capped.PromptLengths() {
		if n > 300 {
			t.Errorf("prompt %d above --max-prompt 300", n)
		}
	}
	if r := capped.Runs[len(capped.Runs)-1]; r.Concurrency != 5 {
		t.Errorf("ramp ends at %d, want 5", r.Concurrency)
	}
}

func TestSliceReaderWriter(t *testing.T) {
	rows := RunSpec{Name: "x", Kind: KindDecode, Concurrency: 1, Prompts: []int{5}, Outputs: []int{2}, Requests: 3}.Rows()
	r := NewSliceReader(traces.Meta{Source: "mem"}, rows)
	w := &SliceWriter{}
	for r.Next() {
		if err := w.Write(r.At()); err != nil {
			t.Fatal(err)
		}
	}
	if r.Err() != nil || r.Meta().Source != "mem" || len(w.Rows) != 3 || w.Rows[2] != rows[2] || rowIndex(rows[2].ID) != 2 {
		t.Errorf("read %d rows, ids %q", len(w.Rows), rows[2].ID)
	}
}

// The quick plan's mixed run computes most of its prompts beside the other
// clients' decoding sequences, on an engine shaped like the CPU test engine
// (a 256-token prompt costs about ten decode steps; four slots; Ollama's
// admission lock). One output length for every request
// does not: its clients end in the same step and the next wave of
// prompts meets an idle engine.
func TestMixedRunPutsPromptsBesideDecoding(t *testing.T) {
	p, err := NewPlan(PlanQuick, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(p.Runs, func(r RunSpec) bool { return r.Kind == KindMixed })
	mixed := p.Runs[i]
	beside := func(spec RunSpec) (prompts, full int) {
		var log bytes.Buffer
		cfg := sim.DefaultConfig()
		cfg.Policy.MaxNumSeqs, cfg.Policy.MaxNumBatchedTokens, cfg.Policy.ChunkedPrefill = spec.Concurrency, 2048, false
		cfg.TotalBlocks = spec.Concurrency * 4096 / cfg.BlockSize
		cfg.Step = sim.Linear{C0: 0.005, Cp: 0.0004, Cd: 0.002, Admit: sim.Admission{Delay: 0.008, Lock: true}}
		cfg.Decisions = &log
		loop := sim.ClosedLoop{Clients: spec.Concurrency, IssueGap: time.Millisecond}
		if _, err := sim.RunClosedLoop(context.Background(), cfg, loop, NewSliceReader(traces.Meta{}, spec.Rows()), nil); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(&log)
		for {
			var step struct {
				PrefillIDs []int `json:"prefill_ids"`
				DecodeSeqs int   `json:"decode_seqs"`
			}
			if err := dec.Decode(&step); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			prompts += len(step.PrefillIDs)
			if step.DecodeSeqs == spec.Concurrency-1 {
				full += len(step.PrefillIDs)
			}
		}
		return prompts, full
	}
	prompts, full := beside(mixed)
	if later := mixed.Requests - mixed.Concurrency; prompts != mixed.Requests || full < later*3/4 {
		t.Errorf("%s (outputs %v): %d of %d prompts computed beside %d decoding sequences, want ≥ %d of the %d after the first wave",
			mixed.Name, mixed.Outputs, full, prompts, mixed.Concurrency-1, later*3/4, later)
	}
	lockstep := mixed
	lockstep.Outputs = []int{48}
	if _, full := beside(lockstep); full > 1 {
		t.Errorf("one output length: %d prompts beside %d decoding sequences, want at most 1 (the engine model is not what this test needs)",
			full, mixed.Concurrency-1)
	}
}

func TestPlanValidateOutputs(t *testing.T) {
	run := RunSpec{Name: "mixed-c2-r1", Kind: KindMixed, Concurrency: 2, Prompts: []int{32}, Requests: 4, Repeat: 1}
	for _, c := range []struct {
		outputs []int
		want    string
	}{
		{nil, "calibrate: plan run mixed-c2-r1: concurrency and requests must be ≥ 1, prompt and output lengths given"},
		{[]int{16, 0}, "calibrate: plan run mixed-c2-r1: output length 0 < 1"},
		{[]int{16, 8}, ""},
	} {
		run.Outputs = c.outputs
		err := (&Plan{Name: "x", Runs: []RunSpec{run}}).Validate()
		if got := fmt.Sprint(err); (c.want == "" && err != nil) || (c.want != "" && got != c.want) {
			t.Errorf("outputs %v: %v, want %q", c.outputs, err, c.want)
		}
	}
}
