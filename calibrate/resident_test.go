package calibrate

import (
	"testing"

	"github.com/servesim/servesim/replay"
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
	resetCache(cache, 2, 64, runPrompts{})
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
	resetCache(cache, 2, 64, runPrompts{key: 1, shared: 9})
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

// Prompts that carry prefix hashes (a verification run) share the text of
// their common leading blocks, which the slot keeps: on one slot, b
// shares a's four 16-token blocks and computes 96 of its 160 tokens; c
// shares none of b's and computes all but the shared opening token.
// Steps keep what recovery charged when no hashes are known.
func TestAnnotateResidentKeepsHashedPrefixes(t *testing.T) {
	hashed := func(r *traces.Request, h ...uint64) *traces.Request { r.PrefixHashes = h; return r }
	rows := []*traces.Request{
		hashed(row("a", 160, 0, 10, 20), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
		hashed(row("b", 160, 25, 35, 45), 1, 2, 3, 4, 15, 16, 17, 18, 19, 20),
		hashed(row("c", 160, 50, 60, 70), 21, 22, 23, 24, 25, 26, 27, 28, 29, 30),
	}
	ms := func(a, b int64) (int64, int64) { return a * 1e6, b * 1e6 }
	steps := func() []Observation {
		obs := make([]Observation, 6)
		for i, w := range [][2]int64{{0, 10}, {10, 20}, {25, 35}, {35, 45}, {50, 60}, {60, 70}} {
			obs[i].Start, obs[i].End = ms(w[0], w[1])
			if i%2 == 0 {
				obs[i].PrefillTokens, obs[i].PrefillAttn = 160, 160*160
			} else {
				obs[i].DecodeSeqs = 1
			}
		}
		return obs
	}
	obs := steps()
	annotateResident(obs, rows, newSlotCache(1), 0, runPrompts{block: 16})
	for i, want := range []float64{160, 0, 96, 0, 159} {
		if obs[i].PrefillTokens != want {
			t.Errorf("step %d: %v prompt tokens computed, want %v", i, obs[i].PrefillTokens, want)
		}
	}
	if got, want := obs[2].PrefillAttn, 96.0*160; got != want {
		t.Errorf("b's prefill attention %v, want %v", got, want)
	}
	if got := obs[2].PrefillResident; got != 96*160 {
		t.Errorf("b's prefill resident feature %v, want 96 tokens × 160 cells", got)
	}

	obs = steps()
	annotateResident(obs, rows, newSlotCache(1), 0, runPrompts{})
	for i := 0; i < len(obs); i += 2 {
		if obs[i].PrefillTokens != 160 {
			t.Errorf("no block size: step %d: %v prompt tokens, want 160", i, obs[i].PrefillTokens)
		}
	}

	// An engine that counts cached tokens had them taken off already.
	rows[1].UsageCached = 64
	obs = steps()
	obs[2].PrefillTokens = 96
	annotateResident(obs, rows, newSlotCache(1), 0, runPrompts{block: 16})
	if obs[2].PrefillTokens != 96 {
		t.Errorf("engine-counted cache: %v prompt tokens, want 96", obs[2].PrefillTokens)
	}
}

// A slot reset as the engine runs it: four one-token requests sent at
// once, of which the engine prefills the first alone (the others reach it
// later) and the other three in one step, their first tokens reaching the
// client up to 9 ms apart. Slots go to requests when they start, so the
// second takes the first one's slot, sharing its tag, and slot 3 stays
// empty: cells 0-63 hold the first, then the second's 54 new tokens, and
// the third and fourth follow at 64-191.
func TestAnnotateResidentAdmitsAtFirstToken(t *testing.T) {
	rows := []*traces.Request{row("r/0", 64, 0, 50), row("r/1", 64, 0, 100), row("r/2", 64, 0, 101), row("r/3", 64, 0, 109)}
	cache := newSlotCache(4)
	annotateResident(nil, rows, cache, 10e6, runPrompts{key: 1, shared: 9})
	for slot, want := range []int32{64, 64, 64, 0} {
		if got := cache.Held(slot); got != want {
			t.Errorf("slot %d holds %d tokens, want %d", slot, got, want)
		}
	}
	if got := cache.Attended(); got != 192 {
		t.Errorf("attended %d cells, want 192", got)
	}
}

func TestPromptKeys(t *testing.T) {
	text := replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 7}
	r := &traces.Request{}
	r.Reset()
	r.PromptTokens = 200
	const salt = 36*36*36*36 + 1 // "10001" in base 36: the tag is "[r10001 #<i>]"
	shared := func(a, b []uint64) int {
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n
	}
	run := runPrompts{salt: salt, text: text}
	for _, c := range []struct {
		name string
		a, b []uint64
		want int
	}{
		{"one run", run.keys(0, r), run.keys(1, r), 7 + len("[r10001 #")},
		{"salts agreeing in their first digits", run.keys(0, r), runPrompts{salt: salt + 1, text: text}.keys(0, r), 7 + len("[r1000")},
		{"other runs", run.keys(0, r), runPrompts{salt: 2*salt - 1, text: text}.keys(0, r), 7 + len("[r")},
	} {
		if got := shared(c.a, c.b); got != c.want {
			t.Errorf("%s: %d tokens in common, want %d", c.name, got, c.want)
		}
	}
	// Two bytes a token: a tag of 9 bytes shares 4 whole tokens, plus BOS.
	half := runPrompts{salt: salt, text: replay.TextModel{TokensPerByte: 0.5, Overhead: 1}}
	if got := shared(half.keys(0, r), half.keys(1, r)); got != 1+4 {
		t.Errorf("0.5 tokens per byte: %d tokens in common, want 5", got)
	}
	if k := (runPrompts{text: text}).keys(0, r); k != nil {
		t.Errorf("no salt: keys %v, want nil (the prompt cannot be rebuilt)", k)
	}

	// A slot holding a request of the same run keeps the common tokens.
	cache := newSlotCache(1)
	s, _ := cache.Take(200, run.keys(0, r), 1)
	cache.Prefill([]int32{200})
	cache.Release(s)
	if _, cached := cache.Take(200, run.keys(1, r), 1); cached != 16 {
		t.Errorf("next request of the run: %d tokens cached, want 16", cached)
	}
}

func TestResetTolerance(t *testing.T) {
	reset := &RunResult{Spec: RunSpec{Kind: KindReset}, Rows: []*traces.Request{row("reset/0", 64, 1, 51), row("reset/1", 64, 0, 80)}}
	other := &RunResult{Spec: RunSpec{Kind: KindDecode}, Rows: []*traces.Request{row("d/0", 64, 0, 5)}}
	if got, want := resetTolerance([]*RunResult{other, reset}), int64(LiveToleranceFraction*50e6); got != want {
		t.Errorf("resetTolerance = %d ns, want %d (the fraction of the shortest reset TTFT, 50 ms)", got, want)
	}
	if got := resetTolerance([]*RunResult{other}); got != 0 {
		t.Errorf("no reset: %d, want 0", got)
	}
}

// A request whose prefill step recovery dropped (here b's, 25-35 ms) had
// its kept prefix charged nowhere: it is not taken off the next step's
// prompt tokens, which are c's alone.
func TestAnnotateResidentKeptPrefixOfDroppedStep(t *testing.T) {
	hashed := func(r *traces.Request, h ...uint64) *traces.Request { r.PrefixHashes = h; return r }
	rows := []*traces.Request{
		hashed(row("a", 160, 0, 10, 20), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
		hashed(row("b", 160, 25, 35), 1, 2, 3, 4, 15, 16, 17, 18, 19, 20),
		hashed(row("c", 160, 40, 50), 21, 22, 23, 24, 25, 26, 27, 28, 29, 30),
	}
	ms := func(a, b int64) (int64, int64) { return a * 1e6, b * 1e6 }
	obs := make([]Observation, 3)
	obs[0].Start, obs[0].End = ms(0, 10)
	obs[0].PrefillTokens, obs[0].PrefillAttn = 160, 160*160
	obs[1].Start, obs[1].End = ms(10, 20)
	obs[1].DecodeSeqs = 1
	obs[2].Start, obs[2].End = ms(40, 50)
	obs[2].PrefillTokens, obs[2].PrefillAttn = 160, 160*160
	annotateResident(obs, rows, newSlotCache(1), 0, runPrompts{block: 16})
	if got := obs[2].PrefillTokens; got != 159 {
		t.Errorf("c's step: %v prompt tokens computed, want 159 (all but the shared opening token)", got)
	}
}
