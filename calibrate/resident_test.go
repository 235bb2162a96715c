package calibrate

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

func resRow(id string, send int64, prompt int32, times ...int64) *traces.Request {
	r := &traces.Request{}
	r.Reset()
	r.ID, r.ActualSend, r.PromptTokens, r.TokenTimes = id, send*1e6, prompt, nil
	for _, t := range times {
		r.TokenTimes = append(r.TokenTimes, t*1e6)
	}
	return r
}

// Two slots, both holding 65 tokens after a reset: a takes slot 0; when
// it ends its 102 tokens stay there until b takes the same slot (the
// lowest idle one); slot 1 keeps its 65 throughout.
func TestAnnotateResident(t *testing.T) {
	rows := []*traces.Request{resRow("a", 0, 100, 10, 20), resRow("b", 25, 50, 35, 45)}
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

	slots := newSlotState(2)
	slots.reset(ResetPromptTokens + 1)
	annotateResident(obs, rows, slots)
	for i, want := range []float64{100 * (100 + 65), 101 + 65, 50 * (50 + 65), 51 + 65} {
		if got := obs[i].PrefillResident + obs[i].DecodeResident; got != want {
			t.Errorf("step %d: resident feature %v, want %v", i, got, want)
		}
	}
	if slots.busy[0] || slots.busy[1] || slots.retained[0] != 52 || slots.retained[1] != 65 {
		t.Errorf("after the run: %+v, want slot 0 holding b's 52 tokens and slot 1 its 65", slots)
	}

	// Without slots only requests in flight count.
	annotateResident(obs, rows, nil)
	for i, want := range []float64{100 * 100, 101, 50 * 50, 51} {
		if got := obs[i].PrefillResident + obs[i].DecodeResident; got != want {
			t.Errorf("no slots: step %d: resident feature %v, want %v", i, got, want)
		}
	}
}
