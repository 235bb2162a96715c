package sim

import (
	"math"
	"testing"
)

func TestDecodeClosedForms(t *testing.T) {
	timers := map[string]DecodeStretcher{
		"linear":   realTimer,
		"roofline": realRoofline,
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
			}{{1, 100, 1}, {1, 100, 1000}, {32, 32000, 500}, {256, 1e5, 3000}, {7, 1, 20000}} {
				sum := 0.0
				for j := int64(0); j < tc.k; j++ {
					sum += d.StepSeconds(Batch{DecodeSeqs: tc.n, DecodeContext: tc.c0 + tc.n*float64(j)})
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
