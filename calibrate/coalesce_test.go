package calibrate

import (
	"slices"
	"testing"

	"github.com/servesim/servesim/traces"
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
	for _, x := range rows {
		x.Chunks = int32(len(x.TokenTimes))
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
	var changed *traces.Request
	for _, x := range rows {
		if len(x.TokenTimes) > 10 && shared(x.TokenTimes[0]) {
			changed = x
			if first {
				// One first chunk of two tokens: both at its arrival.
				x.TokenTimes[0] = x.TokenTimes[1]
				x.Chunks = int32(len(x.TokenTimes) - 1)
			} else {
				x.TokenTimes[3] = x.TokenTimes[4]
			}
			break
		}
	}
	if changed == nil {
		t.Fatal("no long request sharing its first step")
	}
	got, st, err := RecoverSteps(nil, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Coalesced == 0 || st.Skipped != 0 {
		t.Fatalf("want a coalesced boundary and no request skipped: %+v", st)
	}
	checkKeptAway(t, got, want, changed)
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

// A chunk that carries two tokens is recorded with the first of them
// spread halfway across the gap since the chunk before (replay's
// TokenTimes): that time is no step boundary, and no kept step may be
// read from it.
func TestRecoverStepsSpreadChunkTokens(t *testing.T) {
	rows, want := tinyEngine(workload(40, 5, 9), genConfig{coef: trueCoef, maxSeqs: 16, seed: 9})
	byEnd := map[int64]Observation{}
	for _, o := range want {
		byEnd[o.End] = o
	}
	for _, x := range rows {
		x.Chunks = int32(len(x.TokenTimes))
	}
	// A token whose step was much shorter or longer than the next one's
	// (a prefill in the batch), so that halfway is far from its boundary.
	var spread *traces.Request
	for _, x := range rows {
		tt := x.TokenTimes
		for k := 1; k+1 < len(tt) && spread == nil; k++ {
			a, b := tt[k]-tt[k-1], tt[k+1]-tt[k]
			if a > 3*b || b > 3*a {
				tt[k] = tt[k-1] + (tt[k+1]-tt[k-1])/2
				x.Chunks--
				spread = x
			}
		}
		if spread != nil {
			break
		}
	}
	if spread == nil {
		t.Fatal("no token between steps of different lengths")
	}
	got, st, err := RecoverSteps(nil, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 1 {
		t.Errorf("skipped %d requests, want the one with a spread chunk", st.Skipped)
	}
	checkKeptAway(t, got, want, spread)
	for _, g := range got {
		w, ok := byEnd[g.End]
		if !ok {
			t.Errorf("recovered step %d..%d ns (prefill %g, decode %g): the engine ran no step ending then", g.Start, g.End, g.PrefillTokens, g.DecodeSeqs)
			continue
		}
		if g.PrefillTokens != w.PrefillTokens || g.DecodeSeqs != w.DecodeSeqs || g.DecodeContext != w.DecodeContext || g.Start != w.Start {
			t.Errorf("step ending at %d: got prefill %g decode %g context %g start %d, engine ran prefill %g decode %g context %g start %d",
				g.End, g.PrefillTokens, g.DecodeSeqs, g.DecodeContext, g.Start, w.PrefillTokens, w.DecodeSeqs, w.DecodeContext, w.Start)
		}
	}
}

// checkKeptAway checks that every step the engine ran before x arrived or
// after its last token was recovered: only the steps of x's lifetime may
// be dropped for its tokens, so a recovery that keeps nothing does not
// pass for one that keeps nothing wrong.
func checkKeptAway(t *testing.T, got, want []Observation, x *traces.Request) {
	t.Helper()
	kept := map[int64]bool{}
	for _, g := range got {
		kept[g.End] = true
	}
	last := x.TokenTimes[len(x.TokenTimes)-1]
	away, lost := 0, 0
	for _, w := range want {
		if w.End < x.Arrival || w.Start > last {
			away++
			if !kept[w.End] {
				lost++
			}
		}
	}
	if away == 0 || lost > 0 {
		t.Errorf("%d of the engine's %d steps away from request %s (%d..%d ns) were not recovered (%d recovered in all)",
			lost, away, x.ID, x.Arrival, last, len(got))
	}
}
