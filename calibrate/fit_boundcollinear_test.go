package calibrate

import (
	"math/rand/v2"
	"testing"
)

// Steps of one context length, but for one a hair longer: ck and cd
// are all but collinear (ck·context ≈ cd), so neither is identified. NNLS
// holds one at 0; the other's interval must still say that the data
// cannot tell them apart, not be the tight interval of a fit without the
// held term, which here excluded the true ck threefold.
func TestFitStepsNearCollinearBoundKeepsIntervalWide(t *testing.T) {
	const ck, cd = 1e-6, 1e-3
	rng := rand.New(rand.NewPCG(1, 1))
	var obs []Observation
	for i := range 200 {
		o := Observation{DecodeSeqs: float64(1 + rng.IntN(8))}
		context := 500.0
		if i == 7 {
			context += 0.007
		}
		o.DecodeContext = o.DecodeSeqs * context
		o.Seconds = 0.01 + cd*o.DecodeSeqs + ck*o.DecodeContext + 3e-4*rng.NormFloat64()
		obs = append(obs, o)
	}
	s := &FitSettings{}
	for _, t := range []Term{TermPrefillResident, TermDecodeResident, TermResident, TermPostPrefill} {
		s.Off[t] = true
	}
	f, err := FitSteps(obs, s)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[Term]float64{TermDecodeSeqs: cd, TermDecodeContext: ck}
	for term, want := range truth {
		c := f.Step.At(term)
		if c.Status == StatusFit && (want < c.Lo || want > c.Hi) {
			t.Errorf("%s = %+v: its interval excludes the true %g though cd and ck are not identified apart", term, c, want)
		}
	}
}
