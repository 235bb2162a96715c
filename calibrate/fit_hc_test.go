package calibrate

import (
	"math/rand/v2"
	"testing"
)

// Step times' noise grows with the step (5% of it here), so equal weights
// leave the weighted residuals heteroscedastic: an interval from
// σ²·(XᵀWX)⁻¹ is too narrow for the terms that big steps excite (cp, ca)
// and too wide for c0 (measured 84–98% over the terms). Each term's 95%
// interval must cover its true value in about 95% of 200 seeds.
func TestFitStepsIntervalsCoverUnderProportionalNoise(t *testing.T) {
	const seeds = 200
	coef := trueCoef
	var covered [TermPrefillResident]int
	for seed := range uint64(seeds) {
		f, err := FitSteps(synthObs(60, coef, 0.05, 7000+seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range TermPrefillResident {
			if c := f.Step.At(Term(i)); c.Lo <= coef[i] && coef[i] <= c.Hi {
				covered[i]++
			}
		}
	}
	// 95% of 200 is 190 ± 3.1 (binomial sd): allow about two and a half.
	for i, n := range covered {
		if n < 182 || n > 198 {
			t.Errorf("%s: its 95%% interval covered the truth in %d of %d seeds", Term(i), n, seeds)
		}
	}
	t.Logf("coverage of %d seeds: %v", seeds, covered)
}

// ck and cd told apart by one step's context 1e-7 tokens longer: with
// the collinearity check made that fine, the interval of the free one
// must still be wide enough to hold the truth, not of zero width where
// an ill-conditioned XᵀWX rounds its variance to 0 or below.
func TestFitStepsIllConditionedIntervalNotZeroWidth(t *testing.T) {
	obs := nearCollinearDecodes(1e-7)
	s := &FitSettings{Collinearity: 1e-14}
	for _, t := range []Term{TermPrefillResident, TermDecodeResident, TermResident, TermPostPrefill} {
		s.Off[t] = true
	}
	f, err := FitSteps(obs, s)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[Term]float64{TermDecodeSeqs: 1e-3, TermDecodeContext: 1e-6}
	for term, want := range truth {
		if c := f.Step.At(term); c.Status == StatusFit && (c.Lo == c.Hi || want < c.Lo || want > c.Hi) {
			t.Errorf("%s = %+v: its interval excludes the true %g", term, *c, want)
		}
	}
}

// nearCollinearDecodes draws 200 decode steps of one context length (500
// tokens) but for step 7, eps longer, so that ck and cd are all but
// collinear.
func nearCollinearDecodes(eps float64) []Observation {
	rng := rand.New(rand.NewPCG(1, 1))
	var obs []Observation
	for i := range 200 {
		o := Observation{DecodeSeqs: float64(1 + rng.IntN(8))}
		context := 500.0
		if i == 7 {
			context += eps
		}
		o.DecodeContext = o.DecodeSeqs * context
		o.Seconds = 0.01 + 1e-3*o.DecodeSeqs + 1e-6*o.DecodeContext + 3e-4*rng.NormFloat64()
		obs = append(obs, o)
	}
	return obs
}
