package calibrate

import (
	"slices"
	"testing"
)

// A request that receives two tokens together was in the batch of the
// step that made the first of them, whose boundary it did not see: that
// step must not be kept with the request missing from its batch.
func TestRecoverStepsCoalescedKeepsNoUndercountedStep(t *testing.T) {
	for _, first := range []bool{false, true} {
		testCoalesced(t, first)
	}
}

func testCoalesced(t *testing.T, first bool) {
	rows, want := tinyEngine(workload(40, 5, 9), genConfig{coef: trueCoef, maxSeqs: 16, seed: 9})
	byEnd := map[int64]Observation{}
	for _, o := range want {
		byEnd[o.End] = o
	}
	// A long request whose first token shares its step with others.
	shared := func(x0 int64) bool {
		n := 0
		for _, x := range rows {
			if slices.Contains(x.TokenTimes, x0) {
				n++
			}
		}
		return n > 1
	}
	found := false
	for _, x := range rows {
		if len(x.TokenTimes) > 10 && shared(x.TokenTimes[0]) {
			found = true
			if first {
				x.TokenTimes[0] = x.TokenTimes[1]
			} else {
				x.TokenTimes[3] = x.TokenTimes[4]
			}
			break
		}
	}
	if !found {
		t.Fatal("no long request sharing its first step")
	}
	got, st, err := RecoverSteps(nil, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Coalesced == 0 {
		t.Fatalf("no coalesced boundary: %+v", st)
	}
	for _, g := range got {
		w, ok := byEnd[g.End]
		if !ok {
			t.Errorf("recovered step ending at %d: no such step", g.End)
			continue
		}
		if g.PrefillTokens != w.PrefillTokens || g.DecodeSeqs != w.DecodeSeqs || g.DecodeContext != w.DecodeContext || g.Start != w.Start {
			t.Errorf("first token coalesced %v: step ending at %d: got prefill %g decode %g context %g start %d, engine ran prefill %g decode %g context %g start %d",
				first, g.End, g.PrefillTokens, g.DecodeSeqs, g.DecodeContext, g.Start, w.PrefillTokens, w.DecodeSeqs, w.DecodeContext, w.Start)
		}
	}
}
