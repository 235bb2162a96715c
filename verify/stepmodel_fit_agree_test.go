package verify

import (
	"math"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/sim"
)

// The simulator's step time from a profile is what the fit's model says
// the same step costs: same features, same units, same dense curve.
func TestStepModelAgreesWithTheFitsPrediction(t *testing.T) {
	fit := func(v float64) calibrate.Coef {
		return calibrate.Coef{Value: v, Lo: v, Hi: v, Status: calibrate.StatusFit}
	}
	for _, curve := range []bool{false, true} {
		st := calibrate.StepCoefficients{Ca: fit(2e-10), Ck: fit(3e-8), Crp: fit(1e-12), Crd: fit(4e-11), Cr: fit(5e-9), Cq: fit(1e-4),
			Dense: calibrate.DenseOff()}
		if curve {
			st.C0, st.Cp, st.Cd = calibrate.Coef{Status: calibrate.StatusOff}, calibrate.Coef{Status: calibrate.StatusOff}, calibrate.Coef{Status: calibrate.StatusOff}
			for i, v := range []float64{0.010, 0.0102, 0, 0.0105, 0.011, 0.012, 0, 0.016, 0.02, 0.03, 0.05, 0.09, 0.17, 0} {
				st.Dense[i].Coef = fit(v)
			}
			st.Dense[2].Coef = calibrate.Coef{Status: calibrate.StatusUnexcited}
			st.Dense[6].Coef = calibrate.Coef{Status: calibrate.StatusBound}
			st.Dense[13].Coef = calibrate.Coef{Status: calibrate.StatusBound}
		} else {
			st.C0, st.Cp, st.Cd = fit(0.008), fit(1e-5), fit(2e-4)
		}
		lin, _, err := StepModel(&calibrate.Profile{Step: st}, "p.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []sim.Batch{
			{DecodeSeqs: 1, DecodeContext: 1001, Resident: 1001},
			{DecodeSeqs: 3, DecodeContext: 3003, Resident: 3500, AfterPrefill: 1},
			{PrefillTokens: 512, PrefillAttn: 512 * 512, Resident: 512},
			{PrefillTokens: 300, PrefillAttn: 300 * 800, DecodeSeqs: 40, DecodeContext: 40000, Resident: 41000},
			{PrefillTokens: 12000, PrefillAttn: 12000 * 12000, Resident: 12000},
			{PrefillTokens: 5000, PrefillAttn: 5000 * 9000, DecodeSeqs: 6, DecodeContext: 6000, Resident: 15000},
		} {
			o := calibrate.Observation{PrefillTokens: b.PrefillTokens, PrefillAttn: b.PrefillAttn, DecodeSeqs: b.DecodeSeqs,
				DecodeContext: b.DecodeContext, AfterPrefill: b.AfterPrefill}
			o.Resident, o.PrefillResident, o.DecodeResident = b.Resident, b.PrefillTokens*b.Resident, b.DecodeSeqs*b.Resident
			want := st.StepSeconds(o)
			var row [calibrate.NumTerms]float64
			o.Features(row[:])
			byFeatures := 0.0
			for k := range calibrate.NumTerms {
				byFeatures += st.At(calibrate.Term(k)).Value * row[k]
			}
			got := lin.StepSeconds(b)
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("curve %v, batch %+v: simulator %.9g s, fit's model %.9g s", curve, b, got, want)
			}
			// Within the fitted knots the fit's own design row gives the same.
			if b.PrefillTokens+b.DecodeSeqs <= 4096 && math.Abs(byFeatures-want) > 1e-12*want && !curve {
				t.Errorf("curve %v, batch %+v: design row %.9g s, profile %.9g s", curve, b, byFeatures, want)
			}
		}
	}
}

// The roofline prior of one decode step of Llama-3.1-8B (bf16) on one
// H100, by hand: weights and the sequence's KV read at 85% of 3.35 TB/s
// outweigh its FLOPs at 70% of 989 TFLOPS, plus 2 ms.
func TestRooflinePriorOfOneDecodeStepByHand(t *testing.T) {
	cat := model.DefaultCatalog()
	a, err := cat.Arch("Llama-3.1-8B")
	if err != nil {
		t.Fatal(err)
	}
	h, err := cat.Hardware("H100-SXM-80G")
	if err != nil {
		t.Fatal(err)
	}
	rf, err := model.NewRoofline(a, h, model.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Roofline{FLOPS: rf.FLOPS, BandwidthBytesPerSec: rf.BandwidthBytesPerSec, WeightBytes: rf.WeightBytes,
		KVBytesPerToken: rf.KVBytesPerToken, FLOPsPerToken: rf.FLOPsPerToken, AttnFLOPsPerQueryCtx: rf.AttnFLOPsPerQueryCtx, OverheadSec: rf.OverheadSec}
	ctx := 1001.0 // a 1000-token prompt's first decode step
	weights := 8_030_261_248 * 2.0
	kv := 2 * 32 * 8 * 128 * 2.0 * ctx
	memory := (weights + kv) / (3.35e12 * 0.85)
	compute := (2*8_030_261_248 + 4*32*32*128*ctx) / (989e12 * 0.7)
	want := math.Max(memory, compute) + 2e-3
	got := r.StepSeconds(sim.Batch{DecodeSeqs: 1, DecodeContext: ctx, Resident: ctx})
	t.Logf("memory %.4f ms, compute %.4f ms, step %.4f ms", memory*1e3, compute*1e3, got*1e3)
	if math.Abs(got-want) > 1e-9*want {
		t.Errorf("step %.6f ms, by hand %.6f ms", got*1e3, want*1e3)
	}
	if m := rf.StepSeconds(0, 0, 1, ctx, 0); m != got {
		t.Errorf("model.Roofline %.9g s, sim.Roofline %.9g s", m, got)
	}
	if d := r.DecodeSeconds(1, ctx, 1); math.Abs(d-got) > 1e-12 {
		t.Errorf("one-step stretch %.9g s, one step %.9g s", d, got)
	}
}
