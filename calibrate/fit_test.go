package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// synthObs draws n steps mixing prefill-only, decode-only and mixed
// batches, with durations from coef times (1 + noise·N(0,1)).
func synthObs(n int, coef [NumTerms]float64, noise float64, seed uint64) []Observation {
	rng := rand.New(rand.NewPCG(seed, 3))
	obs := make([]Observation, n)
	for i := range obs {
		var o Observation
		kind := rng.IntN(3)
		if kind != 1 { // prefill chunks
			for range 1 + rng.IntN(3) {
				chunk := float64(16 + rng.IntN(2048))
				ctx := chunk + float64(rng.IntN(2048))
				o.PrefillTokens += chunk
				o.PrefillAttn += chunk * ctx
			}
		}
		if kind != 0 { // decodes
			o.DecodeSeqs = float64(1 + rng.IntN(128))
			o.DecodeContext = o.DecodeSeqs * float64(100+rng.IntN(3000))
		}
		if coef[TermPrefillResident] > 0 || coef[TermDecodeResident] > 0 || coef[TermResident] > 0 {
			// the whole cache: the batch's contexts and idle slots' tokens
			resident := o.PrefillTokens + o.DecodeContext + float64(rng.IntN(200000))
			o.PrefillResident, o.DecodeResident = o.PrefillTokens*resident, o.DecodeSeqs*resident
			o.Resident = resident
		}
		if coef[TermPostPrefill] > 0 && kind == 1 && rng.IntN(3) == 0 {
			o.AfterPrefill = 1 // one of the decode steps right after a prompt
		}
		f := o.Features(nil)
		var y float64
		for j := range NumTerms {
			y += coef[j] * f[j]
		}
		o.Seconds = y * (1 + noise*rng.NormFloat64())
		o.Run = i % 7
		obs[i] = o
	}
	return obs
}

func TestFitStepsRecoversCoefficients(t *testing.T) {
	coef := trueCoef
	obs := synthObs(3000, coef, 0.02, 42)
	f, err := FitSteps(obs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range NumTerms {
		c := f.Step.At(Term(i))
		if Term(i) >= TermDense0 {
			if c.Status != StatusOff {
				t.Errorf("%s = %g (%s), want off (the linear model)", Term(i), c.Value, c.Status)
			}
			continue
		}
		if coef[i] == 0 { // the resident terms: no feature in this design
			if c.Status != StatusUnexcited {
				t.Errorf("%s = %g (%s), want unexcited", Term(i), c.Value, c.Status)
			}
			continue
		}
		e := math.Abs(c.Value-coef[i]) / coef[i]
		if c.Status != StatusFit || e > 0.05 {
			t.Errorf("%s = %.4g (%s), want %.4g within 5%% (%.2f%% off)", Term(i), c.Value, c.Status, coef[i], 100*e)
		}
		if !(c.Lo <= c.Value && c.Value <= c.Hi) || c.Lo == c.Hi {
			t.Errorf("%s interval [%g, %g] around %g", Term(i), c.Lo, c.Hi, c.Value)
		}
	}
	q := f.Quality
	if q.N != 3000 || q.R2 < 0.99 || q.MdAPE > 0.03 || q.RMSE <= 0 {
		t.Errorf("quality %+v", q)
	}
	t.Logf("2%% noise, n=3000: %s R2=%.5f RMSE=%.3g s MdAPE=%.4f", fmtCoefs(f.Step), q.R2, q.RMSE, q.MdAPE)

	// About 95% of the intervals from independent noise cover the truth.
	covered, total := 0, 0
	for seed := range uint64(40) {
		f, err := FitSteps(synthObs(300, coef, 0.02, 1000+seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range TermPrefillResident {
			c := f.Step.At(Term(i))
			total++
			if c.Lo <= coef[i] && coef[i] <= c.Hi {
				covered++
			}
		}
	}
	// Multiplicative noise breaks homoscedasticity, so allow slack.
	if r := float64(covered) / float64(total); r < 0.85 {
		t.Errorf("95%% intervals cover the truth %.0f%% of the time", 100*r)
	} else {
		t.Logf("95%% intervals covered the truth in %d of %d cases", covered, total)
	}

	// Weights proportional to 1/y² (relative errors) fit as well.
	w := make([]float64, len(obs))
	for i, o := range obs {
		w[i] = 1 / (o.Seconds * o.Seconds)
	}
	fw, err := FitSteps(obs, &FitSettings{Weights: w})
	if err != nil {
		t.Fatal(err)
	}
	for i := range TermPrefillResident {
		if c := fw.Step.At(Term(i)); math.Abs(c.Value-coef[i])/coef[i] > 0.05 {
			t.Errorf("weighted %s = %.4g, want %.4g", Term(i), c.Value, coef[i])
		}
	}
}

// With attention over the whole cache (llama.cpp), the three resident
// terms are recovered too, given steps whose idle slots hold different
// amounts.
func TestFitStepsRecoversResidentTerms(t *testing.T) {
	coef := trueCoef
	coef[TermPrefillResident], coef[TermDecodeResident], coef[TermResident] = 5e-11, 1e-10, 2e-8
	f, err := FitSteps(synthObs(3000, coef, 0.02, 43), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []Term{TermPrefillResident, TermDecodeResident, TermResident} {
		c := f.Step.At(i)
		if e := math.Abs(c.Value-coef[i]) / coef[i]; c.Status != StatusFit || e > 0.05 {
			t.Errorf("%s = %.4g (%s), want %.4g within 5%% (%.2f%% off)", i, c.Value, c.Status, coef[i], 100*e)
		}
	}
	t.Logf("%s", fmtCoefs(f.Step))
}

// The cost of the steps right after a prompt (cq) is recovered from decode
// steps with and without it.
func TestFitStepsRecoversPostPrefill(t *testing.T) {
	coef := trueCoef
	coef[TermPostPrefill] = 2e-3
	f, err := FitSteps(synthObs(3000, coef, 0.02, 44), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Step.At(TermPostPrefill)
	if e := math.Abs(c.Value-coef[TermPostPrefill]) / coef[TermPostPrefill]; c.Status != StatusFit || e > 0.05 {
		t.Errorf("cq = %.4g (%s), want %.4g within 5%% (%.2f%% off)", c.Value, c.Status, coef[TermPostPrefill], 100*e)
	}
}

// The dense curve: a step costs 4 ms plus 60 µs per token, and 3 ms more
// from two tokens on (a kernel change, as on the CPU engine), on top of
// the attention terms; the fit recovers every point within 5%.
func TestFitStepsRecoversDenseCurve(t *testing.T) {
	var coef [NumTerms]float64
	coef[TermPrefillAttn], coef[TermDecodeContext] = 2e-9, 1.5e-7
	for i, k := range DenseKnots {
		coef[int(TermDense0)+i] = 4e-3 + 6e-5*k
		if k >= 2 {
			coef[int(TermDense0)+i] += 3e-3
		}
	}
	f, err := FitSteps(synthObs(3000, coef, 0.02, 44), &FitSettings{Curve: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range NumTerms {
		c := f.Step.At(Term(i))
		switch {
		case Term(i) == TermConst || Term(i) == TermPrefill || Term(i) == TermDecodeSeqs:
			if c.Status != StatusOff {
				t.Errorf("%s = %g (%s), want off (the curve holds it)", Term(i), c.Value, c.Status)
			}
		case coef[i] == 0:
			if c.Value != 0 {
				t.Errorf("%s = %g (%s), want 0", Term(i), c.Value, c.Status)
			}
		default:
			if e := math.Abs(c.Value-coef[i]) / coef[i]; c.Status != StatusFit || e > 0.05 {
				t.Errorf("%s = %.4g (%s), want %.4g within 5%% (%.2f%% off)", Term(i), c.Value, c.Status, coef[i], 100*e)
			}
		}
	}
	// The simulator's curve is the fitted points.
	curve := f.Step.Curve()
	if len(curve.Tokens) != NumDense || curve.At(3) <= curve.At(2) || math.Abs(curve.At(1)-coef[TermDense0])/coef[TermDense0] > 0.05 {
		t.Errorf("curve %+v: want all %d points, increasing, ≈ %g at one token", curve, NumDense, coef[TermDense0])
	}
	t.Logf("%s", fmtCoefs(f.Step))
}

func checkNoNaN(t *testing.T, f *Fit) {
	t.Helper()
	for i := range NumTerms {
		c := f.Step.At(Term(i))
		if math.IsNaN(c.Value) || math.IsNaN(c.Lo) || math.IsNaN(c.Hi) {
			t.Errorf("%s has NaN: %+v", Term(i), c)
		}
	}
	q := f.Quality
	if math.IsNaN(q.R2) || math.IsNaN(q.RMSE) || math.IsNaN(q.MdAPE) || math.IsNaN(f.Sigma) {
		t.Errorf("quality has NaN: %+v sigma %g", q, f.Sigma)
	}
}

func TestFitStepsDegenerate(t *testing.T) {
	base := synthObs(500, trueCoef, 0.01, 7)
	mod := func(fn func(*Observation)) []Observation {
		out := make([]Observation, len(base))
		for i, o := range base {
			fn(&o)
			out[i] = o
		}
		return out
	}
	decodeOnly := mod(func(o *Observation) {
		o.PrefillTokens, o.PrefillAttn = 0, 0
		if o.DecodeSeqs == 0 {
			o.DecodeSeqs, o.DecodeContext = 4, 4000
		}
	})
	constSeqs := mod(func(o *Observation) { o.DecodeSeqs = 8 })
	fixedPrompt := mod(func(o *Observation) { o.PrefillAttn = 512 * o.PrefillTokens })

	cases := []struct {
		name       string
		obs        []Observation
		settings   *FitSettings
		unexcited  []Term
		off        []Term
		noteSubstr string
	}{
		{"decode only", decodeOnly, nil, []Term{TermPrefill, TermPrefillAttn}, nil, "zero in every observation"},
		{"constant decode seqs", constSeqs, nil, []Term{TermDecodeSeqs}, nil, "combination of c0"},
		{"attn proportional to prefill", fixedPrompt, nil, []Term{TermPrefillAttn}, nil, "combination of c0, cp"},
		{"switched off", base, &FitSettings{Off: [NumTerms]bool{TermPrefillAttn: true}}, nil, []Term{TermPrefillAttn}, "switched off"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := FitSteps(tc.obs, tc.settings)
			if err != nil {
				t.Fatal(err)
			}
			checkNoNaN(t, f)
			for _, term := range tc.unexcited {
				if c := f.Step.At(term); c.Status != StatusUnexcited || c.Value != 0 {
					t.Errorf("%s = %+v, want unexcited", term, c)
				}
			}
			for _, term := range tc.off {
				if c := f.Step.At(term); c.Status != StatusOff || c.Value != 0 {
					t.Errorf("%s = %+v, want off", term, c)
				}
			}
			if !strings.Contains(strings.Join(f.Notes, "\n"), tc.noteSubstr) {
				t.Errorf("notes %q lack %q", f.Notes, tc.noteSubstr)
			}
		})
	}

	errCases := []struct {
		name     string
		obs      []Observation
		settings *FitSettings
		want     string
	}{
		{"empty", nil, nil, "no observations"},
		{"all off", base, &FitSettings{Off: [NumTerms]bool{true, true, true, true, true, true, true}}, "no term left"},
		{"too few", base[:1], nil, "degrees of freedom"},
		{"nan feature", mod(func(o *Observation) { o.DecodeContext = math.NaN() }), nil, "decode context = NaN"},
		{"inf seconds", mod(func(o *Observation) { o.Seconds = math.Inf(1) }), nil, "seconds = +Inf"},
		// A step that took no time is no measurement: every duration 0
		// fitted every term at 0 with R² 1 and an MdAPE of 0 over no step.
		{"zero seconds", mod(func(o *Observation) { o.Seconds = 0 }), nil, "observation 0: seconds = 0, want a finite duration > 0"},
		{"negative seconds", mod(func(o *Observation) {
			if o.DecodeSeqs > 0 {
				o.Seconds = -o.Seconds
			}
		}), nil, "want a finite duration > 0"},
		{"weights length", base, &FitSettings{Weights: []float64{1}}, "1 weights for 500"},
		{"bad weight", base[:4], &FitSettings{Weights: []float64{1, 0, 1, 1}}, "weight 1 = 0"},
		{"bad confidence", base, &FitSettings{Confidence: 1.5}, "confidence"},
		// Below 0 no column would ever count as collinear, silently.
		{"negative collinearity", base, &FitSettings{Collinearity: -1e-6}, "collinearity = -1e-06, must be in [0, 1)"},
		{"nan collinearity", base, &FitSettings{Collinearity: math.NaN()}, "collinearity = NaN, must be in [0, 1)"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FitSteps(tc.obs, tc.settings)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestFitStepsBoundTerm(t *testing.T) {
	// Durations that do not depend on decode context, with noise: ck is
	// pushed below 0 about half the time; when it is, it must be reported
	// as bound at 0, not negative.
	coef := trueCoef
	coef[TermDecodeContext] = 0
	for seed := range uint64(6) {
		f, err := FitSteps(synthObs(200, coef, 0.05, seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		checkNoNaN(t, f)
		c := f.Step.Ck
		if c.Value < 0 || (c.Status == StatusBound) != (c.Value == 0) {
			t.Errorf("seed %d: ck = %+v", seed, c)
		}
	}
}

// bruteNNLS solves NNLS by trying every passive set.
func bruteNNLS(a *mat.Dense, b *mat.VecDense) (best []float64, bestRes float64) {
	m, n := a.Dims()
	bestRes = math.Inf(1)
	for mask := 0; mask < 1<<n; mask++ {
		passive := make([]bool, n)
		for j := range n {
			passive[j] = mask&(1<<j) != 0
		}
		z := make([]float64, n)
		if err := solvePassive(z, a, b, passive); err != nil {
			continue
		}
		ok := true
		for _, v := range z {
			if v < 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		var r mat.VecDense
		r.MulVec(a, mat.NewVecDense(n, z))
		r.SubVec(b, &r)
		if res := mat.Norm(&r, 2); res < bestRes {
			best, bestRes = z, res
		}
		_ = m
	}
	return best, bestRes
}

func TestNNLSMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial := range 300 {
		m, n := 3+rng.IntN(10), 1+rng.IntN(4)
		a := mat.NewDense(m, n, nil)
		b := mat.NewVecDense(m, nil)
		for i := range m {
			for j := range n {
				a.Set(i, j, rng.NormFloat64())
			}
			b.SetVec(i, rng.NormFloat64())
		}
		var x mat.VecDense
		passive, err := NNLS(&x, a, b, nil)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		var r mat.VecDense
		r.MulVec(a, &x)
		r.SubVec(b, &r)
		_, want := bruteNNLS(a, b)
		if got := mat.Norm(&r, 2); math.Abs(got-want) > 1e-9*(1+want) {
			t.Fatalf("trial %d: residual %g, brute force %g", trial, got, want)
		}
		// KKT: x >= 0; gradient Aᵀr <= 0 where x = 0 and ≈ 0 where x > 0.
		var w mat.VecDense
		w.MulVec(a.T(), &r)
		for j := range n {
			if x.AtVec(j) < 0 || (passive[j] && math.Abs(w.AtVec(j)) > 1e-8) || (!passive[j] && w.AtVec(j) > 1e-8) {
				t.Fatalf("trial %d: KKT fails at %d: x=%g w=%g passive=%v", trial, j, x.AtVec(j), w.AtVec(j), passive[j])
			}
		}
	}
}

func TestNNLSKnown(t *testing.T) {
	// Unconstrained solution is (2, -1); constrained: x2 = 0, x1 = b·a1/|a1|².
	a := mat.NewDense(3, 2, []float64{1, 1, 1, 2, 1, 3})
	b := mat.NewVecDense(3, []float64{1, 0, -1})
	var x mat.VecDense
	if _, err := NNLS(&x, a, b, nil); err != nil {
		t.Fatal(err)
	}
	if math.Abs(x.AtVec(0)-0) > 1e-12 || x.AtVec(1) != 0 {
		// b·a1 = 0 → x1 = 0
		t.Errorf("x = %v", mat.Formatted(&x))
	}
	b = mat.NewVecDense(3, []float64{3, 3, 3})
	if _, err := NNLS(&x, a, b, nil); err != nil {
		t.Fatal(err)
	}
	if math.Abs(x.AtVec(0)-3) > 1e-12 || math.Abs(x.AtVec(1)) > 1e-12 {
		t.Errorf("x = %v, want (3, 0)", mat.Formatted(&x))
	}
	bad := mat.NewVecDense(2, nil)
	if _, err := NNLS(&x, a, bad, nil); err == nil {
		t.Error("mismatched b: no error")
	}
	wrong := mat.NewVecDense(5, nil)
	if _, err := NNLS(wrong, a, b, nil); err == nil {
		t.Error("wrong dst length: no error")
	}
}

func TestCrossCheck(t *testing.T) {
	obs := synthObs(2100, trueCoef, 0.02, 5) // runs 0..6
	h, err := CrossCheck(obs, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Three folds over 7 runs of 300: every run predicted once; the last
	// fold holds runs 2 and 5 out.
	if !h.ByRun || h.NHeld != 2100 || h.NFit != 1500 {
		t.Errorf("split %+v", h)
	}
	// |N(0, 0.02)| has median 0.0135.
	if h.MdAPE > 0.02 || h.Fit.Quality.HeldOutMdAPE == nil || *h.Fit.Quality.HeldOutMdAPE != h.MdAPE {
		t.Errorf("held-out MdAPE %.4f, quality %+v", h.MdAPE, h.Fit.Quality)
	}
	t.Logf("3-fold over 7 runs: MdAPE %.4f MAPE %.4f (n=%d)", h.MdAPE, h.MAPE, h.NHeld)

	one := make([]Observation, 100)
	copy(one, obs[:100])
	for i := range one {
		one[i].Run = 0
	}
	fit, held, byRun, err := SplitHeldOut(nil, nil, one, 4)
	if err != nil || byRun || len(held) != 25 || len(fit) != 75 {
		t.Errorf("single run split: %d/%d byRun=%v err=%v", len(fit), len(held), byRun, err)
	}
	w := make([]float64, len(obs))
	for i := range w {
		w[i] = 1
	}
	if _, err := CrossCheck(obs, 3, &FitSettings{Weights: w}); err != nil {
		t.Errorf("weighted: %v", err)
	}
	if _, err := CrossCheck(obs, 1, nil); err == nil {
		t.Error("k = 1: no error")
	}
}

func TestFitPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var s []PowerSample
	for i := range 500 {
		u := rng.Float64()
		s = append(s, PowerSample{T: int64(i) * 1e8, Watts: 70 + 550*u + 5*rng.NormFloat64(), Utilization: u})
	}
	p, err := FitPower(s)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Idle.Value-70)/70 > 0.03 || math.Abs(p.Dynamic.Value-550)/550 > 0.02 {
		t.Errorf("power fit %+v", p)
	}
	if !(p.Idle.Lo < 70 && 70 < p.Idle.Hi) {
		t.Logf("idle interval [%g, %g] misses 70 (happens 5%% of the time)", p.Idle.Lo, p.Idle.Hi)
	}
	t.Logf("idle %.2f W [%.2f, %.2f], dynamic %.2f W [%.2f, %.2f], R2 %.4f", p.Idle.Value, p.Idle.Lo, p.Idle.Hi,
		p.Dynamic.Value, p.Dynamic.Lo, p.Dynamic.Hi, p.Quality.R2)
	if w := p.Watts(1); math.Abs(w-620) > 10 {
		t.Errorf("watts(1) = %g", w)
	}

	flat := []PowerSample{{0, 80, 0.3}, {1, 82, 0.3}, {2, 81, 0.3}}
	p, err = FitPower(flat)
	if err != nil {
		t.Fatal(err)
	}
	if p.Dynamic.Status != StatusUnexcited || math.Abs(p.Idle.Value-81) > 1e-9 {
		t.Errorf("constant utilization: %+v", p)
	}
	for _, bad := range [][]PowerSample{
		flat[:2],
		{{0, 80, 30}, {1, 82, 0.3}, {2, 81, 0.3}},
		{{0, math.NaN(), 0.1}, {1, 82, 0.3}, {2, 81, 0.3}},
	} {
		if _, err := FitPower(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// Samples that all read 0 W measured no power (the board reports none):
// they are refused, as too few samples are, not fitted as 0 W with R² 1.
func TestFitPowerRefusesAllZeroWatts(t *testing.T) {
	for _, s := range [][]PowerSample{
		{{0, 0, 0.3}, {1, 0, 0.3}, {2, 0, 0.3}},
		{{0, 0, 0}, {1, 0, 0.5}, {2, 0, 1}, {3, 0, 0.2}},
	} {
		p, err := FitPower(s)
		if err == nil {
			t.Errorf("%v: fitted %+v, want an error", s, p)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("all %d samples read 0 W", len(s))) {
			t.Errorf("%v: error %v, want it to say every sample read 0 W", s, err)
		}
	}
	// One sample above 0 W is a measurement.
	if _, err := FitPower([]PowerSample{{0, 0, 0.3}, {1, 0, 0.3}, {2, 0.5, 0.3}}); err != nil {
		t.Errorf("one sample at 0.5 W: %v", err)
	}
}

// Scaled multiplies every step time and interval, and leaves the
// coefficients it was called on as they were.
// Data that do not vary and are matched are fitted perfectly: R² 1
// whatever the value, not a ratio of two rounding errors (the mean of
// equal numbers can be an ulp off them).
func TestQualityOfConstantData(t *testing.T) {
	for _, w := range []float64{70.3, 61.7, 0.1, 333.3} {
		var s []PowerSample
		for i := range 7 {
			s = append(s, PowerSample{T: int64(i), Watts: w, Utilization: 0.37})
		}
		p, err := FitPower(s)
		if err != nil {
			t.Fatal(err)
		}
		if p.Quality.R2 != 1 {
			t.Errorf("power %g W throughout, matched within %.2g W: R² %g, want 1", w, p.Quality.RMSE, p.Quality.R2)
		}
	}
	for _, y := range []float64{0.0043, 0.0123, 0.0071} {
		var obs []Observation
		for i := range 9 {
			obs = append(obs, Observation{DecodeSeqs: float64(1 + i%3), Seconds: y})
		}
		f, err := FitSteps(obs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.Quality.R2 != 1 {
			t.Errorf("steps of %g s throughout, matched within %.2g s: R² %g, want 1", y, f.Quality.RMSE, f.Quality.R2)
		}
	}
	// Constant and not matched: 0.
	if q := quality([]float64{2, 2, 2}, []float64{1, 3, 2}); q.R2 != 0 {
		t.Errorf("constant data missed: R² %g, want 0", q.R2)
	}
}

func TestScaledCoefficients(t *testing.T) {
	s := StepCoefficients{C0: Coef{Value: 1e-3, Lo: 0.8e-3, Hi: 1.2e-3, Status: StatusFit}, Crd: Coef{Value: 5e-7, Status: StatusFit}, Dense: DenseOff()}
	s.Dense[0] = DensePoint{Tokens: DenseKnots[0], Coef: Coef{Value: 2e-3, Status: StatusFit}}
	s.Dense[1] = DensePoint{Tokens: DenseKnots[1], Coef: Coef{Value: 4e-3, Status: StatusFit}}
	o := Observation{DecodeSeqs: 1, Resident: 300, DecodeResident: 300, PrefillTokens: 0}
	before := s.StepSeconds(o)
	got := s.Scaled(1.25)
	if w := 1.25 * before; math.Abs(got.StepSeconds(o)-w) > 1e-12 {
		t.Errorf("scaled step %g s, want %g", got.StepSeconds(o), w)
	}
	if math.Abs(got.C0.Lo-1e-3) > 1e-15 || math.Abs(got.C0.Hi-1.5e-3) > 1e-15 || got.C0.Status != StatusFit {
		t.Errorf("scaled c0 %+v", got.C0)
	}
	if s.StepSeconds(o) != before || s.C0.Value != 1e-3 || s.Dense[1].Value != 4e-3 {
		t.Error("Scaled changed its receiver")
	}
}
