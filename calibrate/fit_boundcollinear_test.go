package calibrate

import (
	"math/rand/v2"
	"slices"
	"strings"
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

// With the collinearity check made finer than rounding, a held term
// (ck or cd) can pass it yet leave XᵀWX over the identified terms
// singular. The fit must not fail for that: the free terms' intervals
// come from the free terms alone, and a note says they assume the held
// term is 0.
func TestFitStepsSingularWithHeldTermFallsBackToFree(t *testing.T) {
	obs := nearCollinearDecodes(1e-6)
	s := &FitSettings{Collinearity: 1e-14}
	for _, t := range []Term{TermPrefillResident, TermDecodeResident, TermResident, TermPostPrefill} {
		s.Off[t] = true
	}
	f, err := FitSteps(obs, s)
	if err != nil {
		t.Fatal(err)
	}
	var held []Term
	for _, term := range []Term{TermConst, TermDecodeSeqs, TermDecodeContext} {
		c := f.Step.At(term)
		switch c.Status {
		case StatusBound:
			held = append(held, term)
		case StatusFit:
			if !(c.Lo < c.Value && c.Value < c.Hi) {
				t.Errorf("%s = %+v: want an interval around the value", term, *c)
			}
		}
	}
	if len(held) != 1 {
		t.Fatalf("held terms %v, want one of cd and ck", held)
	}
	want := held[0].String() + ": held at 0 and not told apart from the free terms"
	if !slices.ContainsFunc(f.Notes, func(n string) bool { return strings.Contains(n, want) }) {
		t.Errorf("notes %q lack %q", f.Notes, want)
	}
}

// Of two held terms, only the one the data cannot tell from the free
// terms makes XᵀWX singular, and only it is noted so: cp, held at 0 for
// a negative effect of prompt tokens that vary freely, is told apart.
func TestFitStepsSingularNotesOnlyTheCollinearHeldTerm(t *testing.T) {
	obs := nearCollinearDecodes(1e-6)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range obs {
		obs[i].PrefillTokens = float64(rng.IntN(100))
		obs[i].Seconds -= 2e-5 * obs[i].PrefillTokens
	}
	s := &FitSettings{Collinearity: 1e-14}
	for _, t := range []Term{TermPrefillResident, TermDecodeResident, TermResident, TermPostPrefill} {
		s.Off[t] = true
	}
	f, err := FitSteps(obs, s)
	if err != nil {
		t.Fatal(err)
	}
	if st := f.Step.At(TermPrefill).Status; st != StatusBound {
		t.Fatalf("cp status %v, want held at 0", st)
	}
	var held Term = -1
	for _, term := range []Term{TermDecodeSeqs, TermDecodeContext} {
		if f.Step.At(term).Status == StatusBound {
			held = term
		}
	}
	if held < 0 {
		t.Fatalf("neither cd nor ck held at 0: notes %q", f.Notes)
	}
	noted := func(term Term) bool {
		want := term.String() + ": held at 0 and not told apart from the free terms"
		return slices.ContainsFunc(f.Notes, func(n string) bool { return strings.HasPrefix(n, want) })
	}
	if !noted(held) {
		t.Errorf("notes %q: %s, collinear with the free terms, is not noted so", f.Notes, held)
	}
	if noted(TermPrefill) {
		t.Errorf("notes %q: cp, independent of the free terms, is noted as not told apart from them", f.Notes)
	}
}
