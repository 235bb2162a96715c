package calibrate

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A request whose usage counts fewer tokens than it streamed chunks has
// token times that fall on some of its chunks only: the steps between
// them ran it too, so they are not recovered as steps without it.
func TestRecoverStepsUsageBelowChunks(t *testing.T) {
	const ms = 1_000_000
	row := func(id string, times []int64, chunks int32) *traces.Request {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.PromptTokens, r.OutputTokens = id, 32, 5
		r.ActualSend, r.FirstToken, r.LastToken = 0, times[0], times[len(times)-1]
		r.TokenTimes, r.Chunks = times, chunks
		r.UsagePrompt, r.UsageOutput = 32, int32(len(times))
		return r
	}
	a := row("a", []int64{10 * ms, 11 * ms, 12 * ms, 13 * ms, 14 * ms}, 5)
	// Five one-token chunks at the same times as a's, but usage says 3:
	// replay puts the 3 tokens on chunks 0, 2 and 4.
	b := row("b", []int64{10 * ms, 12 * ms, 14 * ms}, 5)
	obs, st, err := RecoverSteps(nil, []*traces.Request{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if o.End > 10*ms && o.DecodeSeqs < 2 {
			t.Errorf("step ending at %d ms: %g decoding sequences, but a and b both ran in it (stats %+v)", o.End/ms, o.DecodeSeqs, st)
		}
	}
}
