package calibrate

import "fmt"

// Term indexes one coefficient of the linear step-time model
//
//	step_seconds = C0 + Cp·prefill_tokens + Ca·prefill_attn + Cd·decode_seqs + Ck·decode_context
//	               + Crp·prefill_tokens·resident + Crd·decode_seqs·resident
//
// where resident is every token in the engine's KV cache during the step,
// idle slots' retained tokens included: the last two terms are attention
// over the whole cache, as engines with one cache for all sequences
// (llama.cpp, Ollama) compute it; paged engines fit them as 0.
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
	NumTerms            = 7
)

var termNames = [NumTerms]string{"c0", "cp", "ca", "cd", "ck", "crp", "crd"}

// String is the short name used in profiles and messages: c0, cp, ca, cd,
// ck, crp, crd.
func (t Term) String() string {
	if t < 0 || int(t) >= NumTerms {
		return fmt.Sprintf("Term(%d)", int(t))
	}
	return termNames[t]
}

var termFeature = [NumTerms]string{"constant", "prefill tokens", "prefill attn", "decode seqs", "decode context",
	"prefill tokens × resident", "decode seqs × resident"}

// Observation is one engine step: its batch features and how long it took.
// Times are ns from the trace start; Seconds is End-Start in seconds.
type Observation struct {
	Start, End int64 // step interval, ns

	PrefillTokens float64 // prompt tokens computed in the step
	PrefillAttn   float64 // Σ over prefill chunks of chunk tokens × context after the chunk
	DecodeSeqs    float64 // sequences decoding one token
	DecodeContext float64 // Σ context length over those sequences
	// PrefillResident and DecodeResident are PrefillTokens and DecodeSeqs
	// times the tokens resident in the KV cache during the step (running
	// sequences' and idle slots', see AnnotateResident); kept as products
	// so that windows average them exactly.
	PrefillResident float64
	DecodeResident  float64
	Seconds         float64 // step duration

	// Run is the index of the live run the step came from (set by the
	// caller or RecoverRuns); HeldOut splits on it.
	Run int
	// FromIdle is true when the engine was idle before the step, so Start
	// is the latest send time of its requests rather than the previous
	// step's end; it then includes the request's network and HTTP latency.
	FromIdle bool
}

// Features stores the design-matrix row of o in dst (length NumTerms;
// allocated when nil) and returns it: 1, PrefillTokens, PrefillAttn,
// DecodeSeqs, DecodeContext, PrefillResident, DecodeResident.
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
	// Crp and Crd are absent from profiles written before they existed;
	// they load as 0 with status "off".
	Crp Coef `json:"crp"`
	Crd Coef `json:"crd"`
}

// Coef is one coefficient with its 95% confidence interval.
type Coef struct {
	Value float64 `json:"value"`
	// Lo and Hi bound the 95% confidence interval. They equal Value when
	// no interval is known (Status other than StatusFit, or a prior).
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
	}
	panic(fmt.Sprintf("calibrate: bad term %d", int(t)))
}

// StepSeconds evaluates the model for one observed step. It is what the
// simulator's step timer computes from a profile.
func (s StepCoefficients) StepSeconds(o Observation) float64 {
	var f [NumTerms]float64
	o.Features(f[:])
	t := 0.0
	for i := range NumTerms {
		t += s.At(Term(i)).Value * f[i]
	}
	return t
}

// Predict stores the predicted duration of each observation in dst
// (resized to len(obs), reusing its capacity) and returns it.
func (s StepCoefficients) Predict(dst []float64, obs []Observation) []float64 {
	dst = resize(dst, len(obs))
	for i, o := range obs {
		dst[i] = s.StepSeconds(o)
	}
	return dst
}

func resize(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	return dst[:n]
}
