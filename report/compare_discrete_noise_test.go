package report

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// steppedTPOTRun is a live run of 2,000 requests whose TPOTs take two
// values, one step apart: slow of them 0.141 s, the rest 0.140 s, in a
// fixed shuffled order.
func steppedTPOTRun(name string, slow int) *Run {
	const n = 2000
	tpot := make([]float64, n)
	for i := range tpot {
		tpot[i] = 0.140
		if i < slow {
			tpot[i] = 0.141
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	rng.Shuffle(n, func(i, j int) { tpot[i], tpot[j] = tpot[j], tpot[i] })
	sorted := slices.Sorted(slices.Values(tpot))
	r := &Run{Name: name, Kind: "live", Lat: &Latencies{TPOT: sorted, ByArrival: &Latencies{TPOT: tpot}}}
	r.Metrics.TPOTP99 = Quantile(sorted, 0.99)
	return r
}

func tpotP99Change(t *testing.T, a, b *Run) Change {
	t.Helper()
	for _, c := range compareRuns(t, a, b, 0) {
		if c.Metric == "P99 TPOT" {
			return c
		}
	}
	t.Fatal("no P99 TPOT row")
	return Change{}
}

// A quantile of latencies that come in steps is often the same in a
// resample of either run, so its interval can end at exactly no change.
// Few resamples of no change (and none below) leave a rise beyond chance;
// many leave it within noise.
func TestCompareSteppedQuantileNoChangeBound(t *testing.T) {
	a := steppedTPOTRun("a", 10) // P99 0.140 in nearly every resample
	for _, tc := range []struct {
		slow      int
		wantNoisy bool
	}{
		{30, false}, // B's P99 falls back to 0.140 in about 4% of resamples
		{21, true},  // and in about half of them
	} {
		b := steppedTPOTRun("b", tc.slow)
		c := tpotP99Change(t, a, b)
		if c.Rel <= 0 || c.Lo != 0 || c.Hi <= 0 {
			t.Fatalf("%d slow: change %v, interval %v … %v; want a rise whose interval ends at exactly 0", tc.slow, c.Rel, c.Lo, c.Hi)
		}
		if c.Noisy != tc.wantNoisy || c.Regressed == tc.wantNoisy {
			t.Errorf("%d slow: change %v, interval %v … %v: within noise %v, flagged %v; want within noise %v",
				tc.slow, c.Rel, c.Lo, c.Hi, c.Noisy, c.Regressed, tc.wantNoisy)
		}
	}
}
