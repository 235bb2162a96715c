package calibrate

import (
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/sim"
)

// Term indexes one coefficient of the linear step-time model
//
//	step_seconds = C0 + Cp·prefill_tokens + Ca·prefill_attn + Cd·decode_seqs + Ck·decode_context
//	               + Crp·prefill_tokens·resident + Crd·decode_seqs·resident + Cr·resident
//	               + Cq·after_prefill + Σ_i dense_i·hat_i(prefill_tokens + decode_seqs)
//
// where resident is every token in the engine's KV cache during the step,
// idle slots' retained tokens included (for llama.cpp and Ollama, the
// cells a step attends over: sim.SlotCache): the Crp, Crd and Cr terms are
// attention over the whole cache, as engines with one cache for all
// sequences compute it, in place of Ca and Ck (Analyze switches those off
// for them); paged engines fit them as 0. Crp and Crd are the
// arithmetic, per token attending; Cr is reading the cache's keys and
// values, once per step however many tokens attend (on the CPU test
// engine it is most of a small decode batch's attention cost). Cq is what
// each of the sim.PostPrefillSteps steps after one with prompt tokens
// costs more (after_prefill, sim.Batch.AfterPrefill): on the CPU test
// engine they run slower, every sequence in them alike.
//
// The dense terms are the cost of the step's tokens through the weight
// matrices as a piecewise-linear curve (sim.TokenCurve) with a point at
// each of DenseKnots: hat_i is the curve's basis function for knot i, so
// dense_i is the curve's value there. A fit uses either the curve or
// C0 + Cp·prefill + Cd·decode (FitSettings.Curve), not both: the hats sum
// to 1 wherever there are tokens, so the curve holds the constant.
type Term int

// The terms, in the order of Observation.Features.
const (
	TermConst           Term = iota // C0, seconds per step
	TermPrefill                     // Cp, seconds per prefill token
	TermPrefillAttn                 // Ca, seconds per (prefill token × context token)
	TermDecodeSeqs                  // Cd, seconds per decoding sequence
	TermDecodeContext               // Ck, seconds per context token of a decoding sequence
	TermPrefillResident             // Crp, seconds per (prefill token × resident token)
	TermDecodeResident              // Crd, seconds per (decoding sequence × resident token)
	TermResident                    // Cr, seconds per resident token
	TermPostPrefill                 // Cq, seconds per step among the few after one with prompt tokens
	TermDense0                      // dense_0, seconds at DenseKnots[0] tokens; dense_i follow
	NumTerms            = int(TermDense0) + NumDense
)

// DenseKnots are the token counts of the dense curve's points: powers of
// two, so that the widths where kernels change (one token, one tile of a
// few, captured batch sizes) each get a point, up to the largest step
// engines run.
var DenseKnots = [NumDense]float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}

// NumDense is the number of dense curve points.
const NumDense = 14

var termNames = [TermDense0]string{"c0", "cp", "ca", "cd", "ck", "crp", "crd", "cr", "cq"}

// String is the short name used in messages: c0, cp, ca, cd, ck, crp, crd, cr,
// cq, and dense@N for the curve's point at N tokens.
func (t Term) String() string {
	switch {
	case t >= 0 && t < TermDense0:
		return termNames[t]
	case t >= TermDense0 && int(t) < NumTerms:
		return fmt.Sprintf("dense@%g", DenseKnots[t-TermDense0])
	}
	return fmt.Sprintf("Term(%d)", int(t))
}

// ParseTerm returns the term with String name, case-insensitively as
// policy and precision names are read: c0, cp, ca, cd, ck, crp, crd, cr,
// cq, or dense@N for a point of the dense curve.
func ParseTerm(name string) (Term, error) {
	for t := range Term(NumTerms) {
		if strings.EqualFold(t.String(), name) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown step-model term %q (want one of %s, or dense@N with N one of %v)",
		name, strings.Join(termNames[:], ", "), DenseKnots)
}

// InModel says whether t is a term of the model fitted: the linear one
// (linear) fits c0, cp and cd where the other fits the dense curve.
func (t Term) InModel(linear bool) bool {
	if linear {
		return t < TermDense0
	}
	return t != TermConst && t != TermPrefill && t != TermDecodeSeqs
}

func termFeature(t Term) string {
	if t >= TermDense0 {
		return fmt.Sprintf("dense curve basis at %g tokens", DenseKnots[t-TermDense0])
	}
	return [TermDense0]string{"constant", "prefill tokens", "prefill attn", "decode seqs", "decode context",
		"prefill tokens × resident", "decode seqs × resident", "resident", "after prefill"}[t]
}

// denseHat is the dense curve's basis function for knot i at n tokens: 1 at
// the knot, falling linearly to 0 at its neighbours (the first rises from
// 0 at 0 tokens), and proportional beyond the last knot, as
// sim.TokenCurve extrapolates when that knot costs anything.
func denseHat(i int, n float64) float64 { return curveHat(DenseKnots[:], i, n) }

// curveHat is denseHat for a curve through the points at knots only
// (increasing), as Curve leaves out the points that were not fitted.
func curveHat(knots []float64, i int, n float64) float64 {
	x := knots[i]
	switch {
	case n <= 0:
		return 0
	case n <= x:
		lo := 0.0
		if i > 0 {
			lo = knots[i-1]
		}
		return math.Max(0, (n-lo)/(x-lo))
	case i == len(knots)-1:
		return n / x
	}
	return math.Max(0, (knots[i+1]-n)/(knots[i+1]-x))
}

// Observation is one engine step: its batch features and how long it took.
// Times are ns from the trace start; Seconds is End-Start in seconds.
type Observation struct {
	Start, End int64 // step interval, ns

	PrefillTokens float64 // prompt tokens computed in the step
	PrefillAttn   float64 // Σ over prefill chunks of chunk tokens × context after the chunk
	DecodeSeqs    float64 // sequences decoding one token
	DecodeContext float64 // Σ context length over those sequences
	// Resident is the tokens resident in the KV cache during the step
	// (running sequences' and idle slots', see annotateResident);
	// PrefillResident and DecodeResident are PrefillTokens and DecodeSeqs
	// times it, kept as products so that windows average them exactly.
	Resident        float64
	PrefillResident float64
	DecodeResident  float64
	// AfterPrefill is 1 for a step without prompt tokens among the
	// sim.PostPrefillSteps after one with some (see markAfterPrefill).
	AfterPrefill float64
	Seconds      float64 // step duration

	// Run is the index of the live run the step came from (set by the
	// caller or RecoverRuns); HeldOut splits on it.
	Run int
	// Boundary is the step boundary that ends the step, counted from 1
	// among every boundary RecoverSteps found in its run, the dropped
	// ones included; 0 when unknown. markAfterPrefill counts engine steps
	// with it, not the steps recovery kept.
	Boundary int
	// PromptBoundary is the latest boundary before Boundary at which a
	// request's first token came (its prompt's step ended there), dropped
	// boundaries included; 0 when none or unknown. markAfterPrefill counts
	// from it: a prompt's step recovery dropped still ran.
	PromptBoundary int
	// FromIdle is true when the engine was idle before the step, so Start
	// is the latest send time of its requests rather than the previous
	// step's end; it then includes the request's network and HTTP latency.
	FromIdle bool
}

// Features stores the design-matrix row of o in dst (length NumTerms;
// allocated when nil) and returns it: 1, PrefillTokens, PrefillAttn,
// DecodeSeqs, DecodeContext, PrefillResident, DecodeResident, Resident,
// AfterPrefill, then the dense curve's basis functions at PrefillTokens +
// DecodeSeqs.
//
// A window of averaged decode steps (WindowSteps) has the same
// DecodeSeqs throughout, so its hats are those of its steps.
func (o Observation) Features(dst []float64) []float64 {
	if len(dst) < NumTerms {
		dst = make([]float64, NumTerms)
	}
	dst[TermConst] = 1
	dst[TermPrefill] = o.PrefillTokens
	dst[TermPrefillAttn] = o.PrefillAttn
	dst[TermDecodeSeqs] = o.DecodeSeqs
	dst[TermDecodeContext] = o.DecodeContext
	dst[TermPrefillResident] = o.PrefillResident
	dst[TermDecodeResident] = o.DecodeResident
	dst[TermResident] = o.Resident
	dst[TermPostPrefill] = o.AfterPrefill
	for i := range NumDense {
		dst[int(TermDense0)+i] = denseHat(i, o.PrefillTokens+o.DecodeSeqs)
	}
	return dst[:NumTerms]
}

// StepCoefficients are the fitted (or prior) coefficients of the step-time
// model, in seconds per unit of each feature.
type StepCoefficients struct {
	C0 Coef `json:"c0"`
	Cp Coef `json:"cp"`
	Ca Coef `json:"ca"`
	Cd Coef `json:"cd"`
	Ck Coef `json:"ck"`
	// Crp, Crd and Cr are absent from profiles written before they
	// existed; they load as 0 with status "off".
	Crp Coef `json:"crp"`
	Crd Coef `json:"crd"`
	Cr  Coef `json:"cr"`
	// Cq is absent from profiles written before it existed; it loads as 0
	// with status "off".
	Cq Coef `json:"cq"`
	// Dense is the dense cost curve, a point per DenseKnots entry. Profiles
	// written before it existed load with every point "off".
	Dense [NumDense]DensePoint `json:"dense"`
}

// DensePoint is the dense curve's cost at Tokens tokens.
type DensePoint struct {
	Tokens float64 `json:"tokens"`
	Coef
}

// DenseOff is a dense curve with every point switched off.
func DenseOff() [NumDense]DensePoint {
	var d [NumDense]DensePoint
	for i := range d {
		d[i] = DensePoint{Tokens: DenseKnots[i], Coef: Coef{Status: StatusOff}}
	}
	return d
}

// Curve is the dense curve through its fitted (or prior) points, for the
// simulator; points that are off or unexcited are left out, and the
// simulator interpolates across them. It is the zero curve when the
// profile uses C0, Cp and Cd instead.
func (s *StepCoefficients) Curve() sim.TokenCurve {
	var c sim.TokenCurve
	for _, p := range s.Dense {
		switch p.Status {
		case StatusFit, StatusBound, StatusPrior:
			c.Tokens = append(c.Tokens, p.Tokens)
			c.Seconds = append(c.Seconds, p.Value)
		}
	}
	return c
}

// Scaled returns the coefficients with every step time multiplied by f:
// the same engine, f times slower.
func (s StepCoefficients) Scaled(f float64) StepCoefficients {
	for t := range Term(NumTerms) {
		c := s.At(t)
		c.Value, c.Lo, c.Hi = c.Value*f, c.Lo*f, c.Hi*f
	}
	return s
}

// Coef is one coefficient with its 95% confidence interval.
type Coef struct {
	Value float64 `json:"value"`
	// Lo and Hi bound the 95% confidence interval. They equal Value when
	// no interval is known (Status other than StatusFit or StatusBound,
	// or a bound term whose covariance is singular; see FitSteps).
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Status says how Value was obtained; see the Status constants.
	Status string `json:"status"`
}

// Coefficient statuses.
const (
	StatusFit       = "fit"       // estimated, with a confidence interval
	StatusBound     = "bound"     // NNLS held it at 0 (the data push it negative)
	StatusOff       = "off"       // switched off by the caller; Value 0
	StatusUnexcited = "unexcited" // the design does not excite it (zero or collinear column); Value 0
	StatusPrior     = "prior"     // taken from a prior, not measured
)

// At returns the coefficient of term t.
func (s *StepCoefficients) At(t Term) *Coef {
	switch t {
	case TermConst:
		return &s.C0
	case TermPrefill:
		return &s.Cp
	case TermPrefillAttn:
		return &s.Ca
	case TermDecodeSeqs:
		return &s.Cd
	case TermDecodeContext:
		return &s.Ck
	case TermPrefillResident:
		return &s.Crp
	case TermDecodeResident:
		return &s.Crd
	case TermResident:
		return &s.Cr
	case TermPostPrefill:
		return &s.Cq
	}
	if t >= TermDense0 && int(t) < NumTerms {
		return &s.Dense[t-TermDense0].Coef
	}
	panic(fmt.Sprintf("calibrate: bad term %d", int(t)))
}

// StepSeconds evaluates the model for one observed step as the
// simulator's step timer does from a profile: the dense part from Curve,
// which interpolates across points that were not fitted (no fitted data
// lies in their span, but held-out data may).
func (s StepCoefficients) StepSeconds(o Observation) float64 {
	return s.stepSeconds(o, s.Curve())
}

func (s *StepCoefficients) stepSeconds(o Observation, dense sim.TokenCurve) float64 {
	var f [NumTerms]float64
	o.Features(f[:])
	t := 0.0
	for i := range TermDense0 {
		t += s.At(i).Value * f[i]
	}
	return t + dense.At(o.PrefillTokens+o.DecodeSeqs)
}

// Predict stores the predicted duration of each observation in dst
// (resized to len(obs), reusing its capacity) and returns it.
func (s StepCoefficients) Predict(dst []float64, obs []Observation) []float64 {
	dst = resize(dst, len(obs))
	dense := s.Curve()
	for i, o := range obs {
		dst[i] = s.stepSeconds(o, dense)
	}
	return dst
}

func resize(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	return dst[:n]
}
