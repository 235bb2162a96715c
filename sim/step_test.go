package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

func TestDecodeClosedForms(t *testing.T) {
	timers := map[string]DecodeStretcher{
		"linear":   realTimer,
		"roofline": realRoofline,
		// attention over the whole cache (llama.cpp)
		"linear-resident": Linear{C0: 4e-3, Cp: 3e-4, Ca: 2e-6, Cd: 1.5e-3, Ck: 1e-6, Crp: 3e-7, Crd: 1.2e-6, Cr: 2e-6},
		// dense cost as a curve of the step's tokens (calibrated profiles)
		"linear-curve": Linear{Ca: 2e-6, Ck: 1e-6, Crd: 1.2e-6,
			Dense: TokenCurve{Tokens: []float64{1, 2, 4, 512}, Seconds: []float64{7e-3, 12e-3, 14e-3, 0.4}}},
		// memory-bound at small context, compute-bound later (b1 > b2)
		"roofline-cross-up": Roofline{FLOPS: 1e12, BandwidthBytesPerSec: 1e12, WeightBytes: 1e9, KVBytesPerToken: 1, FLOPsPerToken: 1e6, AttnFLOPsPerQueryCtx: 1e3, OverheadSec: 1e-3},
		// compute-bound at small context, memory-bound later (b1 < b2)
		"roofline-cross-down": Roofline{FLOPS: 1e12, BandwidthBytesPerSec: 1e12, WeightBytes: 1e6, KVBytesPerToken: 1e4, FLOPsPerToken: 1e9, AttnFLOPsPerQueryCtx: 1, OverheadSec: 1e-3},
	}
	for name, d := range timers {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				n, c0 float64
				k     int64
			}{{1, 100, 1}, {1, 3100, 1000}, {32, 32000, 500}, {256, 1e5, 3000}, {7, 1, 20000}} {
				sum := 0.0
				for j := int64(0); j < tc.k; j++ {
					c := tc.c0 + tc.n*float64(j)
					sum += d.StepSeconds(Batch{DecodeSeqs: tc.n, DecodeContext: c, Resident: c})
				}
				got := d.DecodeSeconds(tc.n, tc.c0, tc.k)
				if math.Abs(got-sum) > 1e-12*sum+1e-15 {
					t.Errorf("DecodeSeconds(%v, %v, %d) = %.15g, stepping gives %.15g", tc.n, tc.c0, tc.k, got, sum)
				}
				// The inverse: k steps fit in their own total, k+1 do not.
				if k := d.DecodeSteps(tc.n, tc.c0, got*(1+1e-12)); k != tc.k {
					t.Errorf("DecodeSteps(%v, %v, DecodeSeconds(k=%d)) = %d", tc.n, tc.c0, tc.k, k)
				}
				if k := d.DecodeSteps(tc.n, tc.c0, got*(1-1e-9)); k != tc.k-1 {
					t.Errorf("DecodeSteps just below the total of %d steps = %d, want %d", tc.k, k, tc.k-1)
				}
			}
			if k := d.DecodeSteps(4, 100, -1); k != 0 {
				t.Errorf("negative budget: %d steps", k)
			}
		})
	}
}

func TestTokenCurve(t *testing.T) {
	c := TokenCurve{Tokens: []float64{1, 2, 4, 512}, Seconds: []float64{7e-3, 12e-3, 14e-3, 0.4}}
	for _, tc := range []struct{ n, want float64 }{
		{0, 0}, {0.5, 3.5e-3}, // from 0 at 0 tokens
		{1, 7e-3}, {2, 12e-3}, {4, 14e-3}, {512, 0.4}, // the points
		{3, 13e-3}, {258, 0.207}, // linear in between
		{1024, 0.8}, // proportional beyond the last point
	} {
		if got := c.At(tc.n); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("At(%v) = %v, want %v", tc.n, got, tc.want)
		}
	}
	// Beyond the last point, from the widest point that costs anything.
	held := TokenCurve{Tokens: []float64{1, 2, 4}, Seconds: []float64{3e-3, 2e-3, 0}}
	if got, want := held.At(60), 60e-3; math.Abs(got-want) > 1e-15 {
		t.Errorf("last point at 0: At(60) = %v, want %v", got, want)
	}
	if got := held.At(4); got != 0 {
		t.Errorf("At(4) = %v, want the point's 0", got)
	}
	if got := (TokenCurve{}).At(100); got != 0 {
		t.Errorf("zero curve: At(100) = %v, want 0", got)
	}
	for name, bad := range map[string]TokenCurve{
		"lengths":    {Tokens: []float64{1, 2}, Seconds: []float64{1}},
		"decreasing": {Tokens: []float64{2, 1}, Seconds: []float64{1, 1}},
		"zero":       {Tokens: []float64{0, 1}, Seconds: []float64{1, 1}},
		"negative":   {Tokens: []float64{1, 2}, Seconds: []float64{1, -1}},
		"nan":        {Tokens: []float64{1, 2}, Seconds: []float64{math.NaN(), 1}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, bad)
		}
		if err := (Linear{Cd: 1, Dense: bad}).Validate(); err == nil {
			t.Errorf("%s: Linear.Validate accepted the curve", name)
		}
	}
	if err := (Linear{Ck: 0, Dense: c}).Validate(); err != nil {
		t.Errorf("a curve alone prices a decode step: %v", err)
	}
}

// A slot-cache fit can put all of a decode step's cost on the cells it
// attends over; such a model is valid and its steps take time.
func TestResidentTermsAlonePriceDecode(t *testing.T) {
	if err := (Linear{Cp: 1e-4}).Validate(); err == nil {
		t.Error("Validate accepted a model whose decode steps take no time")
	}
	for _, timer := range []Linear{{Cp: 1e-4, Crd: 1e-6}, {Cp: 1e-4, Cr: 1e-6}} {
		if err := timer.Validate(); err != nil {
			t.Errorf("%+v: %v", timer, err)
			continue
		}
		cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 1000, Step: timer, Devices: 1,
			Slots: 2, Cells: 1000}
		cfg.Policy.MaxNumSeqs = 2
		_, w := mustRun(t, cfg, []*traces.Request{req("a", 0, 100, 3)})
		r := w.rows[0]
		// one prompt step, then two decode steps over ≥ 101 cells each
		if d := float64(r.LastToken-r.FirstToken) / 1e9; !(d >= 2*101*1e-6) {
			t.Errorf("%+v: decode took %g s, want ≥ %g", timer, d, 2*101*1e-6)
		}
	}
}

func TestRooflineMatchesFormula(t *testing.T) {
	r := realRoofline
	b := Batch{PrefillTokens: 512, PrefillAttn: 512 * 1536, PrefillContext: 1024, DecodeSeqs: 16, DecodeContext: 16 * 1000}
	compute := (r.FLOPsPerToken*(512+16) + r.AttnFLOPsPerQueryCtx*(512*1536+16000)) / r.FLOPS
	memory := (r.WeightBytes + r.KVBytesPerToken*(16000+512+1024)) / r.BandwidthBytesPerSec
	if got, want := r.StepSeconds(b), math.Max(compute, memory)+r.OverheadSec; got != want {
		t.Errorf("StepSeconds = %v, want %v", got, want)
	}
	if got := r.StepSeconds(Batch{}); got != 0 {
		t.Errorf("empty batch takes %v s", got)
	}
}

// A finished sequence's tokens stay in its idle slot and every later step
// attends over them, until a new sequence takes the slot (the lowest
// idle one, as in llama.cpp).
func TestSlotCellsSetAttention(t *testing.T) {
	const c0, crd = 1e-3, 1e-6
	timer := Linear{C0: c0, Crd: crd}
	cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 1000, Step: timer, Devices: 1,
		Slots: 2, Cells: 1000}
	cfg.Policy.MaxNumSeqs = 2
	// a (slot 0, cells 0-99) and b (slot 1, cells 100-149) prefill
	// together; both decode once (cells 150, 151), a ends, b decodes 4
	// more (cells 152-155). Every step attends over 160 cells (156
	// padded to 32).
	reqs := []*traces.Request{req("a", 0, 100, 2), req("b", 0, 50, 6), req("c", 1000, 10, 3)}
	_, w := mustRun(t, cfg, reqs)
	by := map[string]*traces.Request{}
	for _, r := range w.rows {
		by[r.ID] = r
	}
	want := c0 + (c0 + 2*crd*160) + 4*(c0+crd*160)
	if got := float64(by["b"].LastToken) / 1e9; math.Abs(got-want) > 1e-9 {
		t.Errorf("b ends at %.9f s, want %.9f", got, want)
	}
	// c takes slot 0 (it holds tokens; a's first token stays, the rest
	// is freed) and fills cells 1-11 from there, but b's idle cells up to
	// 155 still set the attention: 160 cells for a 12-token context.
	wantC := c0 + 2*(c0+crd*160)
	if got := float64(by["c"].LastToken-by["c"].Arrival) / 1e9; math.Abs(got-wantC) > 1e-9 {
		t.Errorf("c takes %.9f s, want %.9f (b's idle cells attended)", got, wantC)
	}
}

// A request whose prompt shares two 16-token blocks with the prompt its
// slot holds prefills only the rest: 8 of its 40 tokens.
func TestSlotPromptCacheShortensPrefill(t *testing.T) {
	const c0, cp = 1e-3, 1e-4
	cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 1000, Devices: 1, Slots: 1, Cells: 1000,
		Step: Linear{C0: c0, Cp: cp, Crd: 1e-15}} // Crd: a slot-cache engine
	cfg.Policy.MaxNumSeqs = 1
	a, b := req("a", 0, 40, 1), req("b", 1e9, 40, 1)
	a.PrefixHashes, b.PrefixHashes = []uint64{7, 8}, []uint64{7, 8}
	_, w := mustRun(t, cfg, []*traces.Request{a, b})
	for _, r := range w.rows {
		want, cached := c0+40*cp, int32(0)
		if r.ID == "b" {
			want, cached = c0+8*cp, 32
		}
		if got := float64(r.FirstToken-r.Arrival) / 1e9; math.Abs(got-want) > 1e-9 || r.UsageCached != cached {
			t.Errorf("%s: TTFT %.9f s, %d cached; want %.9f s, %d cached", r.ID, got, r.UsageCached, want, cached)
		}
	}
}

// The token budget counts only the tokens a slot's prompt cache leaves to
// compute: b (32 of 40 tokens in a's old slot) and c (40 new) fill a
// 48-token budget in one step. Counting b's whole prompt would leave c
// 8 tokens of it and push c's first token a step later.
func TestSlotPromptCacheFreesBudget(t *testing.T) {
	const c0, cp = 1e-3, 1e-4
	cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 1000, Devices: 1, Slots: 2, Cells: 1000,
		Step: Linear{C0: c0, Cp: cp, Crd: 1e-15}}
	cfg.Policy.MaxNumSeqs, cfg.Policy.MaxNumBatchedTokens = 2, 48
	a, b, c := req("a", 0, 40, 1), req("b", 1000, 40, 1), req("c", 1000, 40, 1)
	a.PrefixHashes, b.PrefixHashes, c.PrefixHashes = []uint64{7, 8}, []uint64{7, 8}, []uint64{9, 10}
	_, w := mustRun(t, cfg, []*traces.Request{a, b, c})
	want := c0 + 48*cp
	for _, id := range []string{"b", "c"} {
		if got := float64(w.byID[id].FirstToken-w.byID[id].Arrival) / 1e9; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: TTFT %.9f s, want %.9f (b's 8 and c's 40 tokens in one step)", id, got, want)
		}
	}
	if got := w.byID["b"].UsageCached; got != 32 {
		t.Errorf("b: %d tokens cached, want 32", got)
	}
}

func TestSlotCache(t *testing.T) {
	c := NewSlotCache(2, 400)
	if s, cached := c.Take(100, nil, 0); s != 0 || cached != 0 {
		t.Fatalf("first Take = %d, %d; want slot 0, nothing cached", s, cached)
	}
	if s, _ := c.Take(100, nil, 0); s != 1 {
		t.Fatalf("second Take = slot %d, want 1", s)
	}
	if s, _ := c.Take(100, nil, 0); s != -1 {
		t.Fatalf("Take with every slot busy = slot %d, want -1", s)
	}
	if got := c.Step([]int32{100, 100}); got != 224 {
		t.Errorf("200 cells in use: attended %d, want 224 (padded to 32)", got)
	}
	c.Release(0)
	c.Release(1)
	// Reusing both slots frees all but their first token: cells 0 and
	// 100. Two tokens resident, 101 cells attended.
	for want := range 2 {
		if s, cached := c.Take(100, nil, 0); s != want || cached != SharedPrefix {
			t.Fatalf("Take = %d, %d; want slot %d with %d token cached", s, cached, want, SharedPrefix)
		}
	}
	if got := c.Attended(); got != 128 {
		t.Errorf("after reuse: attended %d, want 128 (slot 1's prefix in cell 100)", got)
	}
	// New tokens fill the freed cells from the first one (cells 1-10).
	if got := c.Step([]int32{5, 5}); got != 128 {
		t.Errorf("after 10 more tokens: attended %d, want 128", got)
	}
	c.Drop(1) // cells 100 and 6-10
	if got := c.Attended(); got != 32 {
		t.Errorf("after dropping slot 1: attended %d, want 32", got)
	}
	c.Release(0)
	c.Release(1)
	// An idle slot holding tokens is preferred to an empty one.
	if s, _ := c.Take(100, nil, 0); s != 0 {
		t.Errorf("Take = slot %d, want 0 (it holds tokens; slot 1 is empty)", s)
	}
}

// A request takes the idle slot whose prompt shares most leading prefix
// keys with its own, and keeps those tokens: only the rest is computed.
func TestSlotCachePromptCache(t *testing.T) {
	c := NewSlotCache(2, 1000)
	for i, keys := range [][]uint64{{1, 2, 3}, {9}} {
		if s, _ := c.Take(48, keys, 16); s != i {
			t.Fatalf("Take = slot %d, want %d", s, i)
		}
	}
	c.Step([]int32{48, 48})
	c.Release(0)
	c.Release(1)
	if s, cached := c.Take(64, []uint64{1, 2, 7, 8}, 16); s != 0 || cached != 32 {
		t.Errorf("Take = slot %d with %d cached, want slot 0 with 32 (two keys shared)", s, cached)
	}
	if s, cached := c.Take(64, []uint64{5}, 16); s != 1 || cached != SharedPrefix {
		t.Errorf("Take = slot %d with %d cached, want slot 1 with only the shared first token", s, cached)
	}
	c.Release(0)
	c.Release(1)
	// A prompt all cached still computes its last token.
	c.Step([]int32{0, 0})
	if s, cached := c.Take(32, []uint64{1, 2}, 16); s != 0 || cached != 31 {
		t.Errorf("Take = slot %d with %d cached, want slot 0 with 31", s, cached)
	}
}

// Prefill batches prompts as Ollama does, at most UBatch tokens of each
// sequence per llama_decode: two 600-token prompts go as slot 0's first
// 512 (cells 0-511), slot 1's first 512 (512-1023), then both tails in
// one ubatch (1024-1111 and 1112-1199). One Step would have split them
// 512 | 88+424 | 176 instead.
func TestSlotCachePrefillRounds(t *testing.T) {
	c := NewSlotCache(2, 4096)
	c.Take(600, nil, 0)
	c.Take(600, nil, 0)
	if att := c.Prefill([]int32{600, 600}); att != 1216 {
		t.Errorf("Prefill attends over %d cells, want 1216", att)
	}
	for slot, want := range [][2][2]int32{{{0, 511}, {1024, 1111}}, {{512, 1023}, {1112, 1199}}} {
		cells := c.cells[slot]
		if len(cells) != 600 || cells[0] != want[0][0] || cells[511] != want[0][1] || cells[512] != want[1][0] || cells[599] != want[1][1] {
			t.Errorf("slot %d: %d cells, runs %d-%d and %d-%d; want 600 in %v", slot, len(cells), cells[0], cells[511], cells[512], cells[599], want)
		}
	}
}

// A run whose clock would pass int64 nanoseconds fails saying so; it wrapped
// round and wrote negative token times.
func TestClockOverflowIsAnError(t *testing.T) {
	for _, pol := range []PolicyConfig{policy(t, Continuous), {Name: Fixed, BatchSize: 2, MaxWaitMs: 50}} {
		for _, noSkip := range []bool{false, true} {
			cfg := DefaultConfig()
			cfg.Policy, cfg.Step, cfg.TotalBlocks, cfg.NoSkip = pol, testTimer, 100, noSkip
			r := req("late", 0, 10, 50)
			r.Arrival = math.MaxInt64 - 1e6
			_, w, err := run(t, cfg, []*traces.Request{req("early", 0, 10, 5), r})
			if err == nil || !strings.Contains(err.Error(), "past the simulator's clock") {
				t.Errorf("%s noSkip=%v: err = %v, want the clock named", pol.Name, noSkip, err)
			}
			for _, row := range w.rows {
				if row.FirstToken < traces.Missing || row.LastToken < traces.Missing {
					t.Errorf("%s noSkip=%v: row %s has token times %d, %d", pol.Name, noSkip, row.ID, row.FirstToken, row.LastToken)
				}
			}
		}
	}
}
