package calibrate

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// The steps after a prompt are counted in engine steps, not in the steps
// recovery kept: when the boundaries right after a prompt's step are
// dropped (a request received two tokens together), the steps left after
// them are further from the prompt than their count among the kept ones.
func TestMarkAfterPrefillCountsDroppedSteps(t *testing.T) {
	// A decodes alone every 10 ms; B, sent at 25 ms, is prefilled in the
	// step that ends at 40 ms. A's token of the step ending at 50 ms
	// reaches the client with the next one, at 60 ms: the boundaries at 50
	// and 60 ms are dropped. The three steps after B's prompt end at 50,
	// 60 and 70 ms; those ending at 80 and 90 ms are steady decode steps.
	a := row("run/0", 100, 0, 10, 20, 30, 40, 60, 60, 70, 80, 90)
	b := row("run/1", 50, 25, 40, 50, 60, 70, 80, 90)
	after, coalesced := afterPrefillByEnd(t, a, b)
	if _, ok := after[50]; ok || coalesced != 2 {
		t.Fatalf("steps %v, %d coalesced: want the boundaries at 50 and 60 ms dropped", after, coalesced)
	}
	for end, want := range map[int64]float64{20: 1, 30: 1, 40: 0, 70: 1, 80: 0, 90: 0} {
		if got, ok := after[end]; !ok || got != want {
			t.Errorf("step ending at %d ms: after prefill %v (recovered %v), want %v", end, got, ok, want)
		}
	}
}

// afterPrefillByEnd recovers the steps of the requests (within 2 ms),
// marks those after a prompt, and returns their AfterPrefill by the
// millisecond each ends at, and how many boundaries were dropped.
func afterPrefillByEnd(t *testing.T, reqs ...*traces.Request) (after map[int64]float64, coalesced int) {
	t.Helper()
	steps, st, err := RecoverSteps(nil, reqs, &RecoverSettings{Tolerance: 2e6})
	if err != nil {
		t.Fatal(err)
	}
	markAfterPrefill(steps)
	after = map[int64]float64{}
	for _, o := range steps {
		after[o.End/1e6] = o.AfterPrefill
	}
	return after, st.Coalesced
}

// A prompt's step is an engine step with prompt tokens even when recovery
// drops its boundary: the three steps after it are the ones after a
// prompt, not steady decode steps.
func TestMarkAfterPrefillCountsFromADroppedPromptStep(t *testing.T) {
	// A decodes alone every 10 ms; B, sent at 25 ms, is prefilled in the
	// step that ends at 40 ms. A's token of that step reaches the client
	// with the next one, at 50 ms: the boundaries at 40 and 50 ms are
	// dropped, B's prompt step with them. The three steps after B's prompt
	// end at 50, 60 and 70 ms; those ending at 80 and 90 ms are steady.
	a := row("run/0", 100, 0, 10, 20, 30, 50, 50, 60, 70, 80, 90)
	b := row("run/1", 50, 25, 40, 50, 60, 70, 80, 90)
	after, coalesced := afterPrefillByEnd(t, a, b)
	if _, ok := after[40]; ok || coalesced != 2 {
		t.Fatalf("steps %v, %d coalesced: want the boundaries at 40 and 50 ms dropped", after, coalesced)
	}
	for end, want := range map[int64]float64{20: 1, 30: 1, 60: 1, 70: 1, 80: 0, 90: 0} {
		if got, ok := after[end]; !ok || got != want {
			t.Errorf("step ending at %d ms: after prefill %v (recovered %v), want %v", end, got, ok, want)
		}
	}
}
