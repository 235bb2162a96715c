package calibrate

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// relativeObs are steps of c0 + cp·prefill + cd·decode times lognormal
// noise of the given spread.
func relativeObs(noise float64, seed uint64) []Observation {
	rng := rand.New(rand.NewPCG(seed, 1))
	var obs []Observation
	for i := range 12 {
		p, d := float64(16*(i%6+1)), float64(i%4+1)
		sec := (1e-3 + 1e-5*p + 2e-4*d) * math.Exp(noise*rng.NormFloat64())
		obs = append(obs, Observation{PrefillTokens: p, DecodeSeqs: d, Seconds: sec})
	}
	return obs
}

// A relative-error fit still moving when its passes run out says so in
// its notes: its coefficients are not the fixed point the method
// describes. Steps this noisy (50%) take about 20 passes; exact ones
// converge at once, with no such note. Six passes are too few for the
// noisy ones.
func TestRelativeFitNotesNonConvergence(t *testing.T) {
	defer func(n int) { maxRelativePasses = n }(maxRelativePasses)
	maxRelativePasses = 6
	for _, c := range []struct {
		noise float64
		want  bool
	}{{0.5, true}, {0, false}} {
		f, err := FitSteps(relativeObs(c.noise, 23), &FitSettings{Relative: true})
		if err != nil {
			t.Fatal(err)
		}
		noted := slices.ContainsFunc(f.Notes, func(n string) bool { return strings.Contains(n, "not converged") })
		if noted != c.want {
			t.Errorf("noise %g: notes %q: a non-convergence note = %v, want %v", c.noise, f.Notes, noted, c.want)
		}
	}
}
