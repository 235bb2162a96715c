package calibrate

import "fmt"

// Term indexes one coefficient of the linear step-time model
//
//	step_seconds = C0 + Cp·prefill_tokens + Ca·prefill_attn + Cd·decode_seqs + Ck·decode_context
type Term int

// The five terms, in the order of Observation.Features.
const (
	TermConst         Term = iota // C0, seconds per step
	TermPrefill                   // Cp, seconds per prefill token
	TermPrefillAttn               // Ca, seconds per (prefill token × context token)
	TermDecodeSeqs                // Cd, seconds per decoding sequence
	TermDecodeContext             // Ck, seconds per context token of a decoding sequence
	NumTerms          = 5
)

var termNames = [NumTerms]string{"c0", "cp", "ca", "cd", "ck"}

// String is the short name used in profiles and messages: c0, cp, ca, cd, ck.
func (t Term) String() string {
	if t < 0 || int(t) >= NumTerms {
		return fmt.Sprintf("Term(%d)", int(t))
	}
	return termNames[t]
}

var termFeature = [NumTerms]string{"constant", "prefill tokens", "prefill attn", "decode seqs", "decode context"}

// Observation is one engine step: its batch features and how long it took.
// Times are ns from the trace start; Seconds is End-Start in seconds.
type Observation struct {
	Start, End int64 // step interval, ns

	PrefillTokens float64 // prompt tokens computed in the step
	PrefillAttn   float64 // Σ over prefill chunks of chunk tokens × context after the chunk
	DecodeSeqs    float64 // sequences decoding one token
	DecodeContext float64 // Σ context length over those sequences
	Seconds       float64 // step duration

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
// DecodeSeqs, DecodeContext.
func (o Observation) Features(dst []float64) []float64 {
	if len(dst) < NumTerms {
		dst = make([]float64, NumTerms)
	}
	dst[TermConst] = 1
	dst[TermPrefill] = o.PrefillTokens
	dst[TermPrefillAttn] = o.PrefillAttn
	dst[TermDecodeSeqs] = o.DecodeSeqs
	dst[TermDecodeContext] = o.DecodeContext
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
	}
	panic(fmt.Sprintf("calibrate: bad term %d", int(t)))
}

// StepSeconds evaluates the model for one step. It is what the simulator's
// step timer computes from a profile.
func (s StepCoefficients) StepSeconds(prefillTokens, prefillAttn, decodeSeqs, decodeContext float64) float64 {
	return s.C0.Value + s.Cp.Value*prefillTokens + s.Ca.Value*prefillAttn +
		s.Cd.Value*decodeSeqs + s.Ck.Value*decodeContext
}

// Predict stores the predicted duration of each observation in dst
// (resized to len(obs), reusing its capacity) and returns it.
func (s StepCoefficients) Predict(dst []float64, obs []Observation) []float64 {
	dst = resize(dst, len(obs))
	for i, o := range obs {
		dst[i] = s.StepSeconds(o.PrefillTokens, o.PrefillAttn, o.DecodeSeqs, o.DecodeContext)
	}
	return dst
}

func resize(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	return dst[:n]
}
