package calibrate

import (
	"bytes"
	"slices"
	"strings"
	"testing"

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
			out := r.Output
			if i == 0 && r.Carrier > 0 {
				out = r.Carrier
			}
			if int(row.PromptTokens) != r.Prompts[i%len(r.Prompts)] || int(row.OutputTokens) != out || row.Warmup != (r.Kind == KindWarmup) {
				t.Errorf("%s row %d: %+v", r.Name, i, row)
			}
		}
		// A carrier outlasts its probes: each takes a prefill and Output − 1
		// decode steps, plus its admission delay (taken as 3 steps).
		if r.Kind == KindAdmission && r.Carrier < (r.Requests-1)*(r.Output+3) {
			t.Errorf("%s: carrier of %d tokens for %d probes of %d", r.Name, r.Carrier, r.Requests-1, r.Output)
		}
	}
	if kinds[KindWarmup] != 1 || kinds[KindPrefill] != 2 || kinds[KindDecode] != 12 || kinds[KindAdmission] != 2 || kinds[KindMixed] != 1 || kinds[KindMemory] != 6 {
		t.Errorf("run kinds %v", kinds)
	}
	if p.Runs[0].Kind != KindWarmup {
		t.Error("the plan does not start with its warm-up")
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
	rows := RunSpec{Name: "x", Kind: KindDecode, Concurrency: 1, Prompts: []int{5}, Output: 2, Requests: 3}.Rows()
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
