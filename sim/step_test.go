package sim

import (
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

func TestDecodeClosedForms(t *testing.T) {
	timers := map[string]DecodeStretcher{
		"linear":   realTimer,
		"roofline": realRoofline,
		// attention over the whole cache, stale slots included (llama.cpp)
		"linear-resident": Linear{C0: 4e-3, Cp: 3e-4, Ca: 2e-6, Cd: 1.5e-3, Ck: 1e-6, Crp: 3e-7, Crd: 1.2e-6},
		// memory-bound at small context, compute-bound later (b1 > b2)
		"roofline-cross-up": Roofline{FLOPS: 1e12, BandwidthBytesPerSec: 1e12, WeightBytes: 1e9, KVBytesPerToken: 1, FLOPsPerToken: 1e6, AttnFLOPsPerQueryCtx: 1e3, OverheadSec: 1e-3},
		// compute-bound at small context, memory-bound later (b1 < b2)
		"roofline-cross-down": Roofline{FLOPS: 1e12, BandwidthBytesPerSec: 1e12, WeightBytes: 1e6, KVBytesPerToken: 1e4, FLOPsPerToken: 1e9, AttnFLOPsPerQueryCtx: 1, OverheadSec: 1e-3},
	}
	for name, d := range timers {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				n, c0, stale float64
				k            int64
			}{{1, 100, 0, 1}, {1, 100, 3000, 1000}, {32, 32000, 0, 500}, {256, 1e5, 5e4, 3000}, {7, 1, 0, 20000}} {
				sum := 0.0
				for j := int64(0); j < tc.k; j++ {
					c := tc.c0 + tc.n*float64(j)
					sum += d.StepSeconds(Batch{DecodeSeqs: tc.n, DecodeContext: c, Resident: c + tc.stale})
				}
				got := d.DecodeSeconds(tc.n, tc.c0, tc.stale, tc.k)
				if math.Abs(got-sum) > 1e-12*sum+1e-15 {
					t.Errorf("DecodeSeconds(%v, %v, %v, %d) = %.15g, stepping gives %.15g", tc.n, tc.c0, tc.stale, tc.k, got, sum)
				}
				// The inverse: k steps fit in their own total, k+1 do not.
				if k := d.DecodeSteps(tc.n, tc.c0, tc.stale, got*(1+1e-12)); k != tc.k {
					t.Errorf("DecodeSteps(%v, %v, %v, DecodeSeconds(k=%d)) = %d", tc.n, tc.c0, tc.stale, tc.k, k)
				}
				if k := d.DecodeSteps(tc.n, tc.c0, tc.stale, got*(1-1e-9)); k != tc.k-1 {
					t.Errorf("DecodeSteps just below the total of %d steps = %d, want %d", tc.k, k, tc.k-1)
				}
			}
			if k := d.DecodeSteps(4, 100, 0, -1); k != 0 {
				t.Errorf("negative budget: %d steps", k)
			}
		})
	}
}

func TestRooflineMatchesFormula(t *testing.T) {
	r := realRoofline
	b := Batch{PrefillTokens: 512, PrefillAttn: 512 * 512, DecodeSeqs: 16, DecodeContext: 16 * 1000}
	compute := (r.FLOPsPerToken*(512+16) + r.AttnFLOPsPerQueryCtx*(512*512+16000)) / r.FLOPS
	memory := (r.WeightBytes + r.KVBytesPerToken*(16000+512)) / r.BandwidthBytesPerSec
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
func TestSlotsRetainTokens(t *testing.T) {
	const c0, crd = 1e-3, 1e-6
	timer := Linear{C0: c0, Crd: crd}
	cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 1000, Step: timer, Devices: 1, Slots: 4}
	cfg.Policy.MaxNumSeqs = 4
	// a (slot 0) and b (slot 1) arrive together; a ends after 2 tokens,
	// b decodes on alone with a's 100+2 tokens retained; c, arriving
	// later, takes slot 0 and drops them.
	reqs := []*traces.Request{req("a", 0, 100, 2), req("b", 0, 50, 6), req("c", 1000, 10, 3)}
	_, w := mustRun(t, cfg, reqs)
	by := map[string]*traces.Request{}
	for _, r := range w.rows {
		by[r.ID] = r
	}
	// Step 1: both prefill (150 tokens resident). Step 2: both decode
	// (resident 101 + 51). Then b alone: context 51+j, plus a's 102.
	want := c0 + c0 + 2*crd*(101+51)
	for j := 0; j < 4; j++ {
		want += c0 + crd*float64(52+j+102)
	}
	if got := float64(by["b"].LastToken) / 1e9; math.Abs(got-want) > 1e-9 {
		t.Errorf("b ends at %.9f s, want %.9f (a's retained tokens charged)", got, want)
	}
	// c alone on a fresh slot 0: b's 56 tokens retained in slot 1.
	wantC := c0 + 0 // prefill: Crp = 0
	for j := 0; j < 2; j++ {
		wantC += c0 + crd*float64(11+j+56)
	}
	if got := float64(by["c"].LastToken-by["c"].Arrival) / 1e9; math.Abs(got-wantC) > 1e-9 {
		t.Errorf("c takes %.9f s, want %.9f (b's retained tokens, not a's)", got, wantC)
	}
}
