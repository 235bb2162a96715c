package calibrate

import (
	"testing"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// Two slots after a reset of 64-token prompts: slot 0 in cells 0-63,
// slot 1 in 64-127. a takes slot 0 (keeping its first cell): its 99 new
// prompt tokens do not fit below slot 1's cells and go to 128-226, so its
// steps attend over 256 cells. b then takes slot 0 too, which frees a's
// cells: b fills cells 1-50, and its steps attend over 128, set by slot
// 1's idle tokens rather than b's 51.
func TestAnnotateResident(t *testing.T) {
	rows := []*traces.Request{row("a", 100, 0, 10, 20), row("b", 50, 25, 35, 45)}
	ms := func(a, b int64) (int64, int64) { return a * 1e6, b * 1e6 }
	obs := make([]Observation, 4)
	obs[0].Start, obs[0].End = ms(0, 10)
	obs[0].PrefillTokens = 100
	obs[1].Start, obs[1].End = ms(10, 20)
	obs[1].DecodeSeqs = 1
	obs[2].Start, obs[2].End = ms(25, 35)
	obs[2].PrefillTokens = 50
	obs[3].Start, obs[3].End = ms(35, 45)
	obs[3].DecodeSeqs = 1

	cache := newSlotCache(2)
	resetCache(cache, 2, ResetPromptTokens, runPrompts{})
	annotateResident(obs, rows, cache, 0, runPrompts{})
	for i, want := range []float64{100 * 256, 256, 50 * 128, 128} {
		if got := obs[i].PrefillResident + obs[i].DecodeResident; got != want {
			t.Errorf("step %d: resident feature %v, want %v", i, got, want)
		}
	}
	if s, cached := cache.Take(100, nil, 0); s != 0 || cached != sim.SharedPrefix {
		t.Errorf("after the run: Take = slot %d with %d cached, want slot 0 (idle, holding b's tokens)", s, cached)
	}

	// Prompts of one run share a tag: b keeps the first 10 positions of
	// a's prompt (cell 0 and cells 128-136), so its steps attend over 160
	// although its 40 new tokens go to cells 1-40.
	cache = newSlotCache(2)
	resetCache(cache, 2, ResetPromptTokens, runPrompts{key: 1, shared: 9})
	annotateResident(obs, rows, cache, 0, runPrompts{key: 2, shared: 9})
	for i, want := range []float64{100 * 256, 256, 50 * 160, 160} {
		if got := obs[i].PrefillResident + obs[i].DecodeResident; got != want {
			t.Errorf("run tag: step %d: resident feature %v, want %v", i, got, want)
		}
	}

	// Without slots only requests in flight count.
	annotateResident(obs, rows, nil, 0, runPrompts{})
	for i, want := range []float64{100 * 100, 101, 50 * 50, 51} {
		if got := obs[i].PrefillResident + obs[i].DecodeResident; got != want {
			t.Errorf("no slots: step %d: resident feature %v, want %v", i, got, want)
		}
	}
}
