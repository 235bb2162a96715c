package calibrate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// FitSettings tunes FitSteps. A nil *FitSettings, and zero fields, mean the
// documented defaults: every term on, equal weights, 95% intervals.
type FitSettings struct {
	// Off switches terms off: their coefficient is fixed at 0 and reported
	// with StatusOff.
	Off [NumTerms]bool
	// Curve fits the dense cost as a curve of the step's tokens (the
	// dense@N terms) in place of c0, cp and cd, which are then off; when
	// false, the dense terms are off. See Term.
	Curve bool
	// Weights, when non-nil, weighs each observation's squared residual
	// (same length as the observations, each > 0 and finite).
	Weights []float64
	// Relative fits relative rather than absolute error: each squared
	// residual is weighed by Weights[i] (1 when nil) over the square of
	// the observation's predicted time, by iterated reweighting (see
	// fitRelative).
	Relative bool
	// Collinearity is the relative residual norm below which a column is
	// treated as lying in the span of the columns before it (in term
	// order, the curve's points first when Curve is set) and reported as
	// StatusUnexcited, in [0, 1). 0 means DefaultCollinearity.
	Collinearity float64
	// Confidence is the two-sided confidence level of the intervals.
	// 0 means DefaultConfidence.
	Confidence float64
}

// The defaults of FitSettings.Collinearity and FitSettings.Confidence.
const (
	DefaultCollinearity = 1e-6
	DefaultConfidence   = 0.95
)

// FitQuality summarizes how well a fit matches its data. Fields that were
// not measured are nil in a profile.
type FitQuality struct {
	N     int     `json:"n"`     // observations fitted
	R2    float64 `json:"r2"`    // 1 − SS_res/SS_tot (unweighted)
	RMSE  float64 `json:"rmse"`  // root mean squared residual, seconds
	MdAPE float64 `json:"mdape"` // median |predicted − observed|/observed, fraction
	// HeldOutMdAPE is the median absolute percentage error (fraction) on
	// held-out observations; nil when there was no held-out check.
	HeldOutMdAPE *float64 `json:"held_out_mdape"`
	NHeldOut     int      `json:"n_held_out"`
}

// Fit is the result of FitSteps.
type Fit struct {
	Step    StepCoefficients
	Quality FitQuality
	// Sigma is the residual standard deviation (weighted residuals when
	// weights were given), with N − free terms degrees of freedom.
	Sigma float64
	DOF   int
	// Notes say which terms were switched off, unexcited or held at 0,
	// and anything else the caller should see.
	Notes []string
}

// FitSteps fits the step-time coefficients to observations by
// non-negative least squares (NNLS, Lawson–Hanson on columns scaled to unit
// norm).
//
// Before fitting, a term is reported as unexcited (StatusUnexcited, value
// 0) when its column is all zero or lies within Collinearity of the span of
// the enabled columns before it in term order (c0, cp, ca, cd, ck; with
// the curve, its points come first): e.g. a run where every step decodes
// the same number of sequences cannot separate cd from c0, and cd is
// reported unexcited. A curve point so reported is left out of the curve,
// which interpolates across it (Curve), and the fit is repeated on the
// hats of the curve through the remaining points.
//
// Confidence intervals are analytic, not bootstrapped: over the identified
// terms I (those not off or unexcited, held at 0 or not), cov is the
// heteroscedasticity-consistent (HC3) sandwich B·X_IᵀW·diag(rᵢ²/(1−hᵢ)²)·
// W X_I·B with B = (X_Iᵀ W X_I)⁻¹, rᵢ observation i's unweighted residual
// and hᵢ = wᵢ·xᵢᵀ·B·xᵢ its leverage in the weighted hat matrix, so
// that noise growing with the step (long prefills vary more) neither
// narrows the intervals of the terms long steps excite nor widens the
// others'. The interval of a free term (F, the terms strictly positive
// at the NNLS solution) is value ± t_{N−|F|}·√cov. They are not conditional on the free set: a
// term held at 0 that is nearly collinear with a free one widens the free
// one's interval, as the data do not tell them apart. A term held at 0
// (StatusBound) gets the interval 0 ± t_{N−|F|}·√cov: its true value may
// be positive, and with no interval a term the noise pushed below 0 was
// never covered (ca, at 15% noise on 60 steps, in a third of the fits).
// When X_Iᵀ W X_I is singular (a held term passed a Collinearity finer
// than rounding), the intervals are over the free terms alone,
// conditional on the held ones being 0, a held term has none, and a note
// says so on each held term that makes it singular (one the data tell
// apart from the free terms gets none). Intervals may extend below 0.
//
// It errors when there are no observations, when weights are malformed,
// when a feature is not finite or a duration not finite and > 0, when no
// term is left to fit,
// or when there are not more observations than free terms (no degrees of
// freedom for an interval). It never returns NaN coefficients.
func FitSteps(obs []Observation, settings *FitSettings) (*Fit, error) {
	var s FitSettings
	if settings != nil {
		s = *settings
	}
	if s.Relative {
		return fitRelative(obs, s)
	}
	return fitSteps(obs, s)
}

// maxRelativePasses bounds fitRelative's fits. Steps with 20% noise
// converge in three to seven, with 50% in 10 to 20; a fit cut short
// says so in its notes. A variable, so that a test can cut it short.
var maxRelativePasses = 20

// relativeTolerance is how far (a fraction of the predicted time) no
// prediction may move between passes for fitRelative to have converged.
const relativeTolerance = 1e-3

// fitRelative is FitSteps with s.Relative: iteratively reweighted least
// squares. The first fit weighs each observation by its observed time
// (observedWeights); each next one by the time the previous fit
// predicts, until no prediction moves by 0.1% or more (relativeTolerance),
// or for maxRelativePasses fits, noted. Weighing by the
// observed time alone gives the steps that happened to run slow less say
// than those that ran fast, and the fit comes out low by about twice the
// relative noise variance (8% at 20% noise); weighing by the prediction
// does not depend on the noise of the observation weighed.
func fitRelative(obs []Observation, s FitSettings) (*Fit, error) {
	base := s.Weights
	if base != nil && len(base) != len(obs) {
		return nil, fmt.Errorf("calibrate: fit steps: %d weights for %d observations", len(base), len(obs))
	}
	s.Relative, s.Weights = false, observedWeights(obs, base)
	f, err := fitSteps(obs, s)
	if err != nil {
		return nil, err
	}
	pred := f.Step.Predict(nil, obs)
	moved := math.Inf(1) // the most a prediction moved in the last pass, fraction
	for range maxRelativePasses - 1 {
		s.Weights = make([]float64, len(obs))
		for i, o := range obs {
			s.Weights[i] = weightAt(base, i) / math.Pow(predictedFloor(pred[i], o.Seconds), 2)
		}
		if f, err = fitSteps(obs, s); err != nil {
			return nil, err
		}
		next := f.Step.Predict(nil, obs)
		moved = 0
		for i, o := range obs {
			moved = math.Max(moved, math.Abs(next[i]-pred[i])/predictedFloor(pred[i], o.Seconds))
		}
		if pred = next; moved < relativeTolerance {
			return f, nil
		}
	}
	f.Notes = append(f.Notes, fmt.Sprintf("relative-error fit not converged after %d passes: a prediction still moved by %.2g%% in the last (under %g%% wanted)",
		maxRelativePasses, 100*moved, 100*relativeTolerance))
	return f, nil
}

// predictedFloor is the predicted time a relative weight divides by: at
// least half the observed time, so that an observation the fit predicts
// near 0 does not take over the next fit. One predicted below half its
// observed time is missed by over 100%, which trimming drops anyway.
func predictedFloor(pred, observed float64) float64 {
	return math.Max(pred, observed/2)
}

// observedWeights returns base[i] (1 when base is nil) / obs[i].Seconds²,
// relative error by the observed times. A duration of 0 or less gets a
// finite weight, so that fitSteps reports the duration, not the weight;
// a base of the wrong length is returned as is for fitSteps to report.
func observedWeights(obs []Observation, base []float64) []float64 {
	if base != nil && len(base) != len(obs) {
		return base
	}
	w := make([]float64, len(obs))
	for i, o := range obs {
		w[i] = weightAt(base, i) / math.Max(o.Seconds*o.Seconds, 1e-12)
	}
	return w
}

// weightAt is weights[i], or 1 when weights is nil.
func weightAt(weights []float64, i int) float64 {
	if weights == nil {
		return 1
	}
	return weights[i]
}

// fitSteps is FitSteps with s.Relative false.
func fitSteps(obs []Observation, s FitSettings) (*Fit, error) {
	n := len(obs)
	x := mat.NewDense(max(n, 1), NumTerms, nil)
	y := make([]float64, n)
	row := make([]float64, NumTerms)
	for i, o := range obs {
		o.Features(row)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("calibrate: fit steps: observation %d: %s = %g", i, termFeature(Term(j)), v)
			}
		}
		// A step takes time: one of 0 s (or less) is no measurement, and
		// MdAPE, relative to durations, would leave it out unseen.
		if !(o.Seconds > 0) || math.IsInf(o.Seconds, 0) {
			return nil, fmt.Errorf("calibrate: fit steps: observation %d: seconds = %g, want a finite duration > 0", i, o.Seconds)
		}
		x.SetRow(i, row)
		y[i] = o.Seconds
	}
	names := make([]string, NumTerms)
	for t := range names {
		names[t] = Term(t).String()
	}
	off := s.Off
	for t := range NumTerms {
		if !Term(t).InModel(!s.Curve) {
			off[t] = true
		}
	}
	// The curve (Curve) leaves out the points that are off or unexcited
	// and interpolates across them: the dense features are the hats of the
	// curve through the others, or the fit is to a curve that a profile
	// never evaluates. A point whose hat is a combination of the others'
	// is left out so, and the fit repeated.
	var knots []int // dense points in the curve, by index into DenseKnots
	for i := range NumDense {
		if !off[int(TermDense0)+i] {
			knots = append(knots, i)
		}
	}
	curveHats := func() {
		at := make([]float64, len(knots))
		for k, i := range knots {
			at[k] = DenseKnots[i]
		}
		for r, o := range obs {
			for i := range NumDense {
				x.Set(r, int(TermDense0)+i, 0)
			}
			for k, i := range knots {
				x.Set(r, int(TermDense0)+i, curveHat(at, k, o.PrefillTokens+o.DecodeSeqs))
			}
		}
	}
	if s.Curve {
		curveHats()
	}
	// The curve's points are selected before the other terms: a point
	// found a combination of the others is left out of the curve, and one
	// of a term (cr, say) that NNLS then holds at 0 would leave the curve
	// short of points where steps were measured.
	var order []int
	if s.Curve {
		for t := range NumTerms {
			order = append(order, (t+int(TermDense0))%NumTerms)
		}
	}
	var combined []termNote // notes of the points left out so
	var lf *linearFit
	for {
		var err error
		if lf, err = fitLinear(x, y, names, off[:], s.Weights, s.Collinearity, s.Confidence, n, order); err != nil {
			return nil, fmt.Errorf("calibrate: fit steps: %w", err)
		}
		var out []termNote
		for _, nt := range lf.notes {
			if Term(nt.term) >= TermDense0 && !nt.zero && lf.coefs[nt.term].Status == StatusUnexcited {
				out = append(out, nt)
			}
		}
		if len(out) == 0 {
			break
		}
		combined = append(combined, out...)
		knots = slices.DeleteFunc(knots, func(i int) bool {
			return slices.ContainsFunc(out, func(nt termNote) bool { return nt.term == int(TermDense0)+i })
		})
		curveHats()
	}
	f := &Fit{Sigma: lf.sigma, DOF: lf.dof}
	// Keep the notes the caller can act on: not the terms the model choice
	// switches off, nor curve points no step reached.
	notes := append(combined, lf.notes...)
	slices.SortStableFunc(notes, func(a, b termNote) int { return a.term - b.term })
	for _, n := range notes {
		if (off[n.term] && !s.Off[n.term]) || (Term(n.term) >= TermDense0 && n.zero) {
			continue
		}
		f.Notes = append(f.Notes, n.text)
	}
	f.Step.Dense = DenseOff()
	for t := range NumTerms {
		*f.Step.At(Term(t)) = lf.coefs[t]
	}
	// Quality is that of the coefficients as a profile uses them
	// (Predict: the dense curve through its fitted points only), not
	// fitLinear's: a dense point unexcited because its hat is a
	// combination of the others' (not zero) was fitted as 0 but is
	// interpolated across there.
	f.Quality = quality(y, f.Step.Predict(nil, obs))
	return f, nil
}

// linearFit is the generic result behind FitSteps and FitPower.
type linearFit struct {
	coefs   []Coef
	quality FitQuality
	sigma   float64
	dof     int
	notes   []termNote
}

// noteTexts returns the notes' texts.
func (lf *linearFit) noteTexts() []string {
	var out []string
	for _, n := range lf.notes {
		out = append(out, n.text)
	}
	return out
}

// termNote says why one term was not fitted freely.
type termNote struct {
	term int  // column of the design
	zero bool // its feature is zero in every observation
	text string
}

// fitLinear fits y ≈ X·β with β ≥ 0. n is the number of rows of x in use
// (x has at least one row even when n is 0).
func fitLinear(x *mat.Dense, y []float64, names []string, off []bool, weights []float64, collTol, conf float64, n int, order []int) (*linearFit, error) {
	_, p := x.Dims()
	if order == nil {
		order = make([]int, p)
		for j := range order {
			order[j] = j
		}
	}
	if n == 0 {
		return nil, errors.New("no observations")
	}
	if weights != nil && len(weights) != n {
		return nil, fmt.Errorf("%d weights for %d observations", len(weights), n)
	}
	for i, w := range weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weight %d = %g, must be > 0 and finite", i, w)
		}
	}
	// Below 0 (or NaN) no column would count as collinear; at 1 or more
	// every one after the first would.
	if !(collTol >= 0 && collTol < 1) {
		return nil, fmt.Errorf("collinearity = %g, must be in [0, 1)", collTol)
	}
	if collTol == 0 {
		collTol = DefaultCollinearity
	}
	if conf == 0 {
		conf = DefaultConfidence
	}
	if !(conf > 0 && conf < 1) {
		return nil, fmt.Errorf("confidence = %g, must be in (0, 1)", conf)
	}
	sw := make([]float64, n) // √weights
	for i := range sw {
		sw[i] = 1
		if weights != nil {
			sw[i] = math.Sqrt(weights[i])
		}
	}

	lf := &linearFit{coefs: make([]Coef, p)}
	// Select identifiable columns greedily by Gram–Schmidt on weighted,
	// unit-norm columns.
	var basis [][]float64
	var cols []int
	for _, j := range order {
		if off[j] {
			lf.coefs[j].Status = StatusOff
			lf.notes = append(lf.notes, termNote{term: j, text: names[j] + ": switched off by the caller"})
			continue
		}
		v := make([]float64, n)
		for i := range n {
			v[i] = sw[i] * x.At(i, j)
		}
		norm := mat.Norm(mat.NewVecDense(n, v), 2)
		if norm == 0 {
			lf.coefs[j].Status = StatusUnexcited
			lf.notes = append(lf.notes, termNote{term: j, zero: true, text: names[j] + ": unexcited: its feature is zero in every observation"})
			continue
		}
		for i := range v {
			v[i] /= norm
		}
		for _, b := range basis {
			d := mat.Dot(mat.NewVecDense(n, v), mat.NewVecDense(n, b))
			for i := range v {
				v[i] -= d * b[i]
			}
		}
		rn := mat.Norm(mat.NewVecDense(n, v), 2)
		if rn < collTol {
			lf.coefs[j].Status = StatusUnexcited
			lf.notes = append(lf.notes, termNote{term: j, text: fmt.Sprintf("%s: unexcited: its feature is (nearly) a combination of %s in these observations", names[j], joinNames(names, cols))})
			continue
		}
		for i := range v {
			v[i] /= rn
		}
		basis = append(basis, v)
		cols = append(cols, j)
	}
	if len(cols) == 0 {
		return nil, errors.New("no term left to fit (all off or unexcited)")
	}

	// Weighted, column-scaled design for NNLS.
	a := mat.NewDense(n, len(cols), nil)
	scale := make([]float64, len(cols))
	for c, j := range cols {
		for i := range n {
			a.Set(i, c, sw[i]*x.At(i, j))
		}
		scale[c] = mat.Norm(a.ColView(c), 2)
		for i := range n {
			a.Set(i, c, a.At(i, c)/scale[c])
		}
	}
	b := mat.NewVecDense(n, nil)
	for i := range n {
		b.SetVec(i, sw[i]*y[i])
	}
	var beta mat.VecDense
	passive, err := NNLS(&beta, a, b, nil)
	if err != nil {
		return nil, err
	}
	var free []int // indices into cols
	for c, j := range cols {
		v := beta.AtVec(c) / scale[c]
		lf.coefs[j] = Coef{Value: v, Lo: v, Hi: v, Status: StatusFit}
		if passive[c] {
			free = append(free, c)
		} else {
			lf.coefs[j] = Coef{Status: StatusBound}
			lf.notes = append(lf.notes, termNote{term: j, text: names[j] + ": held at 0 by the non-negativity constraint"})
		}
	}

	// Residuals and quality.
	pred := make([]float64, n)
	resid := make([]float64, n) // weighted
	var ssw float64
	for i := range n {
		for j := range p {
			pred[i] += lf.coefs[j].Value * x.At(i, j)
		}
		resid[i] = sw[i] * (y[i] - pred[i])
		ssw += resid[i] * resid[i]
	}
	lf.quality = quality(y, pred)
	lf.dof = n - len(free)
	if lf.dof <= 0 {
		// Name the terms the observations excite, so that what the plan
		// lacks (more steps of the kinds that excite them) can be read off.
		freeCols := make([]int, len(free))
		for k, c := range free {
			freeCols[k] = cols[c]
		}
		return nil, fmt.Errorf("%d observations for %d free terms (%s): no degrees of freedom left for confidence intervals: want at least %d observations",
			n, len(free), joinNames(names, freeCols), len(free)+1)
	}
	lf.sigma = math.Sqrt(ssw / float64(lf.dof))
	if len(free) > 0 {
		// The covariance is over every identified column, those held at 0
		// too: a held term was estimated (at the bound), and one nearly
		// collinear with a free term could have taken its share, so an
		// interval conditional on the free set alone is tight around a
		// value the data do not pin down.
		vars, err := sandwichVar(a, resid)
		if err != nil {
			if vars, err = freeVar(a, resid, free); err != nil {
				return nil, fmt.Errorf("inverting XᵀWX on the free terms: %w", err)
			}
			for _, c := range singularHeld(a, free, passive) {
				j := cols[c]
				lf.notes = append(lf.notes, termNote{term: j, text: names[j] + ": held at 0 and not told apart from the free terms (XᵀWX over both is singular): their intervals assume it is 0"})
			}
		}
		// A held term gets an interval around 0 too: its true value may be
		// positive, and with none a term the noise pushed below 0 was
		// never covered. Held terms get variance 0 from freeVar.
		tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(lf.dof)}.Quantile(1 - (1-conf)/2)
		for c, j := range cols {
			se := math.Sqrt(vars[c]) / scale[c]
			lf.coefs[j].Lo = lf.coefs[j].Value - tq*se
			lf.coefs[j].Hi = lf.coefs[j].Value + tq*se
		}
	}
	return lf, nil
}

// sandwichVar returns the heteroscedasticity-consistent (HC3) variances
// of the least-squares coefficients of design a given its residuals e: the
// diagonal of (AᵀA)⁻¹ Aᵀ diag(eᵢ²/(1−hᵢ)²) A (AᵀA)⁻¹, hᵢ the leverage of
// row i. Step times vary more the longer the step, so one σ² for every
// step would make the intervals of the terms long steps excite too narrow.
// Each variance is summed as squares, so that an ill-conditioned AᵀA
// cannot cancel it to 0 or below.
func sandwichVar(a *mat.Dense, e []float64) ([]float64, error) {
	n, p := a.Dims()
	var ata, inv mat.Dense
	ata.Mul(a.T(), a)
	if err := inv.Inverse(&ata); err != nil {
		return nil, err
	}
	var ai mat.Dense // row i is aᵢᵀ(AᵀA)⁻¹
	ai.Mul(a, &inv)
	v := make([]float64, p)
	for i := range n {
		h := mat.Dot(ai.RowView(i), a.RowView(i))
		// A row of leverage 1 leaves its own residual unmeasured: its
		// share is kept finite (and large) rather than infinite.
		u := e[i] / math.Max(1-h, 1e-6)
		for c := range p {
			g := u * ai.At(i, c)
			v[c] += g * g
		}
	}
	return v, nil
}

// freeVar is sandwichVar over the free columns of a alone (indices into
// a's columns), for when AᵀA over the held ones too is singular: the
// variances are conditional on the held terms being 0, as a held term the
// data cannot tell from a free one would make them unbounded. Held
// columns get variance 0.
func freeVar(a *mat.Dense, e []float64, free []int) ([]float64, error) {
	_, p := a.Dims()
	vf, err := sandwichVar(columnsOf(a, free), e)
	if err != nil {
		return nil, err
	}
	v := make([]float64, p)
	for k, c := range free {
		v[c] = vf[k]
	}
	return v, nil
}

// singularHeld returns the held columns of a (not passive) that make AᵀA
// singular: taken in order, each whose column added to the free ones and
// the held ones kept so far leaves AᵀA singular. A held term the data
// tell apart from the free ones is left out, as it did not narrow their
// intervals. When no single column is to blame, every held one is
// returned.
func singularHeld(a *mat.Dense, free []int, passive []bool) []int {
	kept := slices.Clone(free)
	var held, out []int
	for c, p := range passive {
		if p {
			continue
		}
		held = append(held, c)
		if invertibleOn(a, append(kept, c)) {
			kept = append(kept, c)
		} else {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return held
	}
	return out
}

// invertibleOn says whether AᵀA over the given columns of a inverts, by
// the test sandwichVar fails on.
func invertibleOn(a *mat.Dense, cols []int) bool {
	sub := columnsOf(a, cols)
	var ata, inv mat.Dense
	ata.Mul(sub.T(), sub)
	return inv.Inverse(&ata) == nil
}

// columnsOf returns the given columns of a, in that order.
func columnsOf(a *mat.Dense, cols []int) *mat.Dense {
	n, _ := a.Dims()
	sub := mat.NewDense(n, len(cols), nil)
	for k, c := range cols {
		sub.SetCol(k, mat.Col(nil, c, a))
	}
	return sub
}

// quality computes R², RMSE and MdAPE of pred against y (unweighted).
// R² is 1 when y is constant and matched exactly, 0 when y is constant
// and not matched, so it is never NaN. Constant and exact are to within
// rounding of y's scale: the mean of equal numbers can be an ulp off
// them, and R² from such sums is a ratio of two rounding errors.
func quality(y, pred []float64) FitQuality {
	n := len(y)
	var mean, scale float64
	for _, v := range y {
		mean += v
		scale = math.Max(scale, math.Abs(v))
	}
	mean /= float64(n)
	tiny := float64(n) * (1e-10 * scale) * (1e-10 * scale)
	var ssr, sst float64
	ape := make([]float64, 0, n)
	for i := range y {
		r := y[i] - pred[i]
		ssr += r * r
		d := y[i] - mean
		sst += d * d
		if y[i] > 0 {
			ape = append(ape, math.Abs(r)/y[i])
		}
	}
	q := FitQuality{N: n, RMSE: math.Sqrt(ssr / float64(n)), MdAPE: median(ape)}
	switch {
	case sst > tiny:
		q.R2 = 1 - ssr/sst
	case ssr <= tiny:
		q.R2 = 1
	}
	return q
}

// median returns the median of v (0 for an empty v); v is reordered.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	m := len(v) / 2
	if len(v)%2 == 1 {
		return v[m]
	}
	return (v[m-1] + v[m]) / 2
}

func joinNames(names []string, idx []int) string {
	if len(idx) == 0 {
		return "nothing"
	}
	s := ""
	for i, j := range idx {
		if i > 0 {
			s += ", "
		}
		s += names[j]
	}
	return s
}
