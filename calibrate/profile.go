package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/jsonfile"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// ProfileVersion is the schema version Save writes and LoadProfile accepts.
const ProfileVersion = 1

// Profile is a calibrated step-time (and, when measured, memory and power)
// model of one engine serving one model on one device type, with where it
// came from. It is stored as JSON with the field order below; a field
// that was not measured is null, never an estimate.
type Profile struct {
	Version        int      `json:"version"`
	Engine         string   `json:"engine"`         // e.g. "vllm"
	EngineVersion  string   `json:"engine_version"` // e.g. "0.8.5"
	EngineArgs     []string `json:"engine_args"`    // command-line arguments of the engine
	Model          string   `json:"model"`          // model name as served
	Precision      string   `json:"precision"`      // weight precision (model.Precision), "" = unknown
	Device         string   `json:"device"`         // device model, e.g. "H100-SXM-80G"
	TensorParallel int      `json:"tensor_parallel"`
	BlockSize      int      `json:"block_size"` // KV block size in tokens, 0 = unknown
	// MaxSeqs is the most sequences the calibration's ramp, or a fitted
	// run above its top, ran at once: the decode terms are measured up to
	// it and extrapolated past it. A verification run a refit fitted
	// counts, though it ran on an engine of its own: Slots and the
	// engine's limit count only runs on the calibrated engine.
	// 0 = not recorded (profiles written before it).
	MaxSeqs int `json:"max_seqs,omitempty"`
	// MaxContext is the longest context (prompt + output tokens) of a
	// request the fit saw: the attention terms are measured up to it and
	// extrapolated past it. 0 = not recorded (profiles written before it).
	MaxContext int64 `json:"max_context,omitempty"`

	Step    StepCoefficients `json:"step"`    // seconds per unit of each feature
	Quality FitQuality       `json:"quality"` // of the step fit
	KV      *KVCapacity      `json:"kv"`      // nil = not measured
	// KVReported is the KV capacity the engine reported on /metrics:
	// exact where KV is a lower bound; nil when it reported none (and
	// absent from profiles written before it existed).
	KVReported *ReportedKV `json:"kv_reported"`
	Power      *PowerFit   `json:"power"` // nil = not measured
	// Admission is the engine's admission delay when busy; nil = not
	// measured (and absent from profiles written before it existed).
	Admission *Admission `json:"admission"`

	CreatedAt time.Time `json:"created_at"`
	// Traces are the runs the fit replayed, in that order: the fitted runs
	// with the warm-up and slot resets between them, whose tokens a slot
	// engine's cache still holds (Kind says which is which, Slots which
	// had an engine of its own); ReadCitedRun reads them back so.
	Traces  []TraceRef     `json:"traces"`
	Lineage []LineageEntry `json:"lineage"` // parent profiles and refits
	// Method is how the step model was fitted, so that a refit fits the
	// same model the same way; nil in profiles written before it.
	Method *FitMethod `json:"method,omitempty"`
}

// FitMethod is the analysis a profile's fit ran: calibrate's --window,
// --absolute, --no-trim, --linear, --without and --held-out, and the
// fit settings a caller of Analyze may set beside them (AnalyzeOptions.Fit,
// whose terms are recorded as With and Without Analyze's own choice).
type FitMethod struct {
	Window   int      `json:"window"`
	Relative bool     `json:"relative"`
	NoTrim   bool     `json:"no_trim"`
	Linear   bool     `json:"linear"`
	Without  []string `json:"without"` // terms held at 0, by name
	// With are the terms fitted that Analyze would hold at 0 (a caller's
	// Fit switched them on), by name; absent in profiles written before it.
	With         []string `json:"with,omitempty"`
	HeldOutFolds int      `json:"held_out_folds"`
	// Collinearity and Confidence are the fit's FitSettings, defaults
	// filled in (0 in profiles written before they were recorded).
	Collinearity float64 `json:"collinearity,omitempty"`
	Confidence   float64 `json:"confidence,omitempty"`
	// Weights says what weighed each observation: WeightsSteps, or
	// WeightsGiven ("" in profiles written before it was recorded).
	Weights string `json:"weights,omitempty"`
}

// The weights of a fit (FitMethod.Weights): each observation weighs the
// steps it averages, or weights its caller gave (FitSettings.Weights),
// which a refit from the method does not have.
const (
	WeightsSteps = "steps"
	WeightsGiven = "given"
)

// Options are the AnalyzeOptions that fit the same way.
func (m *FitMethod) Options() (AnalyzeOptions, error) {
	o := AnalyzeOptions{HeldOutK: m.HeldOutFolds, Window: m.Window, Relative: m.Relative, NoTrim: m.NoTrim, Linear: m.Linear,
		Collinearity: m.Collinearity, Confidence: m.Confidence}
	for _, name := range m.Without {
		t, err := ParseTerm(name)
		if err != nil {
			return o, fmt.Errorf("method.without: %w", err)
		}
		o.Without[t] = true
	}
	for _, name := range m.With {
		t, err := ParseTerm(name)
		if err != nil {
			return o, fmt.Errorf("method.with: %w", err)
		}
		if o.Without[t] {
			return o, fmt.Errorf("method.with: %s is in method.without too: want a term fitted or held, not both", name)
		}
		o.With[t] = true
	}
	return o, nil
}

// KVCapacity is the KV-cache capacity the engine reported or a run
// measured: MaxConcurrentTokens > 0, and Blocks, when the block size is
// known, those tokens in blocks.
type KVCapacity struct {
	MaxConcurrentTokens int64 `json:"max_concurrent_tokens"`
	Blocks              int64 `json:"blocks"`
}

// ReportedKV is the KV-cache capacity an engine reported itself, at the
// gpu_memory_utilization it was started with (0: not reported).
type ReportedKV struct {
	Source               string  `json:"source"` // the metric, e.g. "vllm:cache_config_info"
	Tokens               int64   `json:"tokens"`
	Blocks               int64   `json:"blocks"`     // 0 when the engine does not count blocks
	BlockSize            int     `json:"block_size"` // tokens per block; 0 when not reported
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
}

// check adds a problem for each bad field of r, named after prefix.
func (r *ReportedKV) check(add func(string, ...any), prefix string) {
	switch {
	case r.Tokens <= 0 || r.Tokens > math.MaxInt32:
		add("%stokens = %d: want 1 to %d", prefix, r.Tokens, math.MaxInt32)
	case r.Blocks < 0 || r.BlockSize < 0 || (r.Blocks > 0) != (r.BlockSize > 0):
		add("%sblocks = %d, block_size = %d: want both > 0, or both 0 when the engine counts no blocks", prefix, r.Blocks, r.BlockSize)
	// Each factor at most tokens first: a larger product could wrap
	// around to tokens.
	case r.Blocks > 0 && (r.Blocks > r.Tokens || int64(r.BlockSize) > r.Tokens || r.Blocks*int64(r.BlockSize) != r.Tokens):
		add("%stokens = %d: want blocks %d × block_size %d", prefix, r.Tokens, r.Blocks, r.BlockSize)
	}
	if u := r.GPUMemoryUtilization; !(u >= 0 && u <= 1) {
		add("%sgpu_memory_utilization = %g: want a fraction in (0, 1], or 0 when not reported", prefix, u)
	}
}

// ParseReportedKV reads the JSON of a ReportedKV, as a run trace's
// ReportedKVKey holds it; the error names each bad field.
func ParseReportedKV(s string) (*ReportedKV, error) {
	var r ReportedKV
	// Strict: data after the object is an error, not ignored.
	if err := jsonfile.DecodeStrict([]byte(s), &r, "a JSON object"); err != nil {
		return nil, fmt.Errorf("want a JSON object of source, tokens, blocks, block_size, gpu_memory_utilization: %w", err)
	}
	var bad []string
	r.check(func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }, "")
	if len(bad) > 0 {
		return nil, errors.New(strings.Join(bad, "; "))
	}
	return &r, nil
}

// TraceRef names a trace file and its content hash.
type TraceRef struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"` // lower-case hex
	// Kind is the run's kind in a profile's traces, the role the fit gave
	// it (warmup and reset: replayed, not fitted; prefill, decode, ...,
	// verify: fitted); empty elsewhere and in profiles that predate it.
	Kind string `json:"kind,omitempty"`
	// Slots, in a profile's traces, is the sequence slots of the engine a
	// run had to itself, started empty (a verification run's: the
	// candidate's max_num_seqs); 0: the calibration's engine, whose cache
	// carries over from run to run.
	Slots int `json:"slots,omitempty"`
}

// LineageEntry names a file this profile derives from: a profile, or
// the Vidur compute profile of a prior.
type LineageEntry struct {
	Relation string `json:"relation"` // "parent" (refined from), "refit" (same data, new method), RelationVidur (built from), or free text
	Path     string `json:"path"`
	SHA256   string `json:"sha256"`
}

// FileSHA256 returns the lower-case hex SHA-256 of the file at path
// (traces.FileSHA256: one rule for every file servesim names by content).
func FileSHA256(path string) (string, error) {
	sum, err := traces.FileSHA256(path)
	if err != nil {
		return "", fmt.Errorf("calibrate: hashing: %w", err) // err names path
	}
	return sum, nil
}

// NewTraceRef hashes the trace file at path.
func NewTraceRef(path string) (TraceRef, error) {
	sum, err := FileSHA256(path)
	return TraceRef{Path: path, SHA256: sum}, err
}

// AddLineage appends the profile file at path, hashed, to p.Lineage.
func (p *Profile) AddLineage(relation, path string) error {
	sum, err := FileSHA256(path)
	if err != nil {
		return err
	}
	p.Lineage = append(p.Lineage, LineageEntry{Relation: relation, Path: path, SHA256: sum})
	return nil
}

// Validate checks p; the error names each bad field.
func (p *Profile) Validate() error {
	var bad []string
	add := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	if p.Version != ProfileVersion {
		add("version = %d, want %d", p.Version, ProfileVersion)
	}
	if p.Precision != "" {
		if _, err := model.ParsePrecision(p.Precision); err != nil {
			add("precision: %v", err)
		}
	}
	if p.TensorParallel < 0 {
		add("tensor_parallel = %d, must be >= 0", p.TensorParallel)
	}
	// A block longer than any prompt never fills (traces.MaxBlockSize,
	// the bound on --block-size).
	if p.BlockSize < 0 || p.BlockSize > traces.MaxBlockSize {
		add("block_size = %d: want a KV block size in [0, %d] (0 = unknown)", p.BlockSize, traces.MaxBlockSize)
	}
	if p.MaxSeqs < 0 {
		add("max_seqs = %d, must be >= 0 (0: not recorded)", p.MaxSeqs)
	}
	if p.MaxContext < 0 {
		add("max_context = %d, must be >= 0 (0: not recorded)", p.MaxContext)
	}
	for i, d := range p.Step.Dense {
		if d.Tokens != DenseKnots[i] {
			add("step.dense[%d].tokens = %g, want %g", i, d.Tokens, DenseKnots[i])
		}
	}
	if err := p.Step.Curve().Validate(); err != nil {
		add("step.dense: %v", err)
	}
	for t := range NumTerms {
		checkCoef(add, "step."+Term(t).String(), *p.Step.At(Term(t)))
	}
	checkQuality(add, "quality", p.Quality)
	switch kv := p.KV; {
	case kv == nil:
	case kv.MaxConcurrentTokens < 0:
		add("kv.max_concurrent_tokens = %d: want ≥ 0", kv.MaxConcurrentTokens)
	case kv.Blocks < 0:
		add("kv.blocks = %d: want ≥ 0", kv.Blocks)
	// The simulator counts blocks in int32, and a block holds ≥ 1 token.
	case kv.MaxConcurrentTokens > math.MaxInt32:
		add("kv.max_concurrent_tokens = %d: want ≤ %d", kv.MaxConcurrentTokens, math.MaxInt32)
	case kv.Blocks > math.MaxInt32:
		add("kv.blocks = %d: want ≤ %d", kv.Blocks, math.MaxInt32)
	case kv.MaxConcurrentTokens == 0:
		// The simulator reads the capacity from the tokens, blocks only
		// beside them: blocks alone would be ignored.
		add("kv.max_concurrent_tokens = 0 with kv.blocks = %d: want the tokens measured (> 0), or kv null when not measured", kv.Blocks)
	// Blocks are the tokens in blocks of block_size (rounded either way),
	// and the simulator takes them over the tokens at that block size.
	case kv.Blocks > 0 && p.BlockSize == 0:
		add("kv.blocks = %d with block_size = 0: want the block size they are counted in, or kv.blocks 0", kv.Blocks)
	case kv.Blocks > 0:
		bs := int64(p.BlockSize)
		lo, hi := kv.MaxConcurrentTokens/bs, (kv.MaxConcurrentTokens+bs-1)/bs
		if kv.Blocks < lo || kv.Blocks > hi {
			add("kv.blocks = %d: want %d to %d, kv.max_concurrent_tokens %d in blocks of block_size %d", kv.Blocks, lo, hi, kv.MaxConcurrentTokens, bs)
		}
	}
	if r := p.KVReported; r != nil {
		r.check(add, "kv_reported.")
		// Both reach the simulator's cache; the engine's is the one it ran.
		if r.BlockSize > 0 && p.BlockSize > 0 && r.BlockSize != p.BlockSize {
			add("block_size = %d, but kv_reported.block_size = %d, the engine's own: want block_size %d (or 0, unknown)", p.BlockSize, r.BlockSize, r.BlockSize)
		}
	}
	if pw := p.Power; pw != nil {
		// FitPower's coefficients, as fitted by NNLS like the step's.
		checkCoef(add, "power.idle_watts", pw.Idle)
		checkCoef(add, "power.dynamic_watts", pw.Dynamic)
		checkQuality(add, "power.quality", pw.Quality)
		for i, d := range pw.Devices {
			if d.Index < 0 {
				add("power.devices[%d].index = %d: want an NVML index ≥ 0", i, d.Index)
			}
		}
	}
	if ad := p.Admission; ad != nil {
		for _, d := range []struct {
			key string
			v   float64
		}{{"delay_s", ad.Delay}, {"p10_s", ad.P10}, {"p90_s", ad.P90}, {"slot_steps", ad.SlotSteps}, {"latency_s", ad.Latency}} {
			if !finite(d.v) || !(d.v >= 0) {
				add("admission.%s = %g: want a finite number ≥ 0", d.key, d.v)
			}
		}
		if ad.P90 < ad.P10 {
			add("admission.p90_s = %g: want ≥ p10_s %g", ad.P90, ad.P10)
		}
		if ad.N < 1 {
			add("admission.n = %d: want ≥ 1 (the probes measured)", ad.N)
		}
		if ad.NSlot < 0 {
			add("admission.n_slot = %d: want ≥ 0", ad.NSlot)
		}
		// The simulator takes no longer delay; it would refuse the profile
		// naming its own fields, not these.
		for _, d := range []struct {
			key string
			v   float64
		}{{"delay_s", ad.Delay}, {"latency_s", ad.Latency}} {
			if d.v > sim.MaxAdmissionDelay {
				add("admission.%s = %g: want ≤ %g s", d.key, d.v, sim.MaxAdmissionDelay)
			}
		}
		// The delay is the probes' median, so their p10 and p90 bracket it.
		if ad.P10 <= ad.P90 && (ad.Delay < ad.P10 || ad.Delay > ad.P90) {
			add("admission.delay_s = %g: want within p10_s %g to p90_s %g, the probes' median", ad.Delay, ad.P10, ad.P90)
		}
	}
	if p.CreatedAt.IsZero() {
		add("created_at is missing")
	}
	for i, t := range p.Traces {
		if !isSHA256(t.SHA256) {
			add("traces[%d].sha256 = %q, want 64 lower-case hex digits", i, t.SHA256)
		}
		if t.Slots < 0 {
			add("traces[%d].slots = %d, must be >= 0", i, t.Slots)
		}
		// A refit replays the run in this role: one it does not know
		// would be fitted as a measured run.
		if t.Kind != "" && !slices.Contains(traceKinds, t.Kind) {
			add("traces[%d].kind = %q, want one of %s (or none)", i, t.Kind, strings.Join(traceKinds, ", "))
		}
	}
	if m := p.Method; m != nil {
		if m.Window < 1 {
			add("method.window = %d, must be >= 1", m.Window)
		}
		if m.HeldOutFolds < 2 {
			add("method.held_out_folds = %d, must be >= 2", m.HeldOutFolds)
		}
		if _, err := m.Options(); err != nil {
			add("%v", err)
		}
		if !(m.Collinearity >= 0 && m.Collinearity < 1) {
			add("method.collinearity = %g, must be in [0, 1)", m.Collinearity)
		}
		if !(m.Confidence >= 0 && m.Confidence < 1) {
			add("method.confidence = %g, must be in (0, 1), or 0 where not recorded", m.Confidence)
		}
		if m.Weights != "" && m.Weights != WeightsSteps && m.Weights != WeightsGiven {
			add("method.weights = %q, want %q or %q (or none)", m.Weights, WeightsSteps, WeightsGiven)
		}
	}
	for i, l := range p.Lineage {
		if l.Relation == "" {
			add("lineage[%d].relation is empty", i)
		}
		if !isSHA256(l.SHA256) {
			add("lineage[%d].sha256 = %q, want 64 lower-case hex digits", i, l.SHA256)
		}
	}
	if len(bad) > 0 {
		return errors.New("calibrate: profile: " + strings.Join(bad, "; "))
	}
	return nil
}

// traceKinds are the kinds a profile's traces are cited in.
var traceKinds = []string{KindWarmup, KindReset, KindPrefill, KindDecode, KindMixed, KindMemory, KindAdmission, KindVerify}

// checkCoef adds to add what is wrong with coefficient c, named name.
func checkCoef(add func(string, ...any), name string, c Coef) {
	switch c.Status {
	case StatusFit, StatusPrior:
	case StatusBound, StatusOff, StatusUnexcited:
		if c.Value != 0 {
			add("%s.value = %g with status %q, must be 0", name, c.Value, c.Status)
		}
	default:
		add("%s.status = %q, want one of fit, bound, off, unexcited, prior", name, c.Status)
	}
	if !finite(c.Value) || c.Value < 0 {
		add("%s.value = %g, must be finite and >= 0", name, c.Value)
	}
	if !finite(c.Lo) || !finite(c.Hi) || c.Lo > c.Value || c.Hi < c.Value {
		add("%s: interval [%g, %g] must be finite and contain value %g", name, c.Lo, c.Hi, c.Value)
	}
}

// checkQuality adds to add what is wrong with fit quality q, named name:
// figures no fit gives (R² above 1, a negative error or count, a held-out
// error without its count or a count without its error).
func checkQuality(add func(string, ...any), name string, q FitQuality) {
	if q.N < 0 {
		add("%s.n = %d, want ≥ 0", name, q.N)
	}
	if q.NHeldOut < 0 {
		add("%s.n_held_out = %d, want ≥ 0", name, q.NHeldOut)
	}
	if !finite(q.R2) || q.R2 > 1 {
		add("%s.r2 = %g, want a finite number ≤ 1", name, q.R2)
	}
	errs := map[string]float64{"rmse": q.RMSE, "mdape": q.MdAPE}
	if q.HeldOutMdAPE != nil {
		errs["held_out_mdape"] = *q.HeldOutMdAPE
	}
	for _, key := range []string{"rmse", "mdape", "held_out_mdape"} {
		if v, ok := errs[key]; ok && (!finite(v) || v < 0) {
			add("%s.%s = %g, want a finite number ≥ 0", name, key, v)
		}
	}
	// The held-out error is over n_held_out observations: verify reports
	// it as the step model's accuracy, so one without the other is no check.
	switch h := q.HeldOutMdAPE; {
	case h == nil && q.NHeldOut > 0:
		add("%s.held_out_mdape = null with n_held_out = %d: want both set (a held-out check) or null and 0 (none)", name, q.NHeldOut)
	case h != nil && q.NHeldOut == 0:
		add("%s.held_out_mdape = %g with n_held_out = 0: want both set (a held-out check) or null and 0 (none)", name, *h)
	}
}

// LoadProfile reads and validates the JSON profile at path. Unknown fields,
// and keys that differ from a field's only in case, are errors naming the
// key; each of the step coefficients c0 … ck must
// be present with a value (crp, crd and cr, added later, default to off).
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // names the path; the caller names what read it
	}
	p, err := ParseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParseProfile decodes and validates a JSON profile; see LoadProfile.
func ParseProfile(data []byte) (*Profile, error) {
	// Strictly, and a syntax or type error says on which line.
	var p Profile
	if err := jsonfile.DecodeStrict(data, &p, "a JSON object"); err != nil {
		// time.Time's own errors name neither the key nor the line.
		if line, v, ok := badCreatedAt(data); ok {
			return nil, fmt.Errorf("calibrate: profile: line %d: created_at = %s: want an RFC 3339 time, e.g. \"2025-06-01T12:00:00Z\"", line, v)
		}
		return nil, fmt.Errorf("calibrate: profile: %w", err)
	}
	// encoding/json matches keys case-insensitively: "Model" would fill
	// model, and beside "model" the later of the two would win.
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("calibrate: profile: %w", err)
	}
	if bad := keyCase(nil, doc, reflect.TypeFor[Profile](), ""); len(bad) > 0 {
		return nil, fmt.Errorf("calibrate: profile: keys differ in case from the documented ones: %s", strings.Join(bad, ", "))
	}
	if key := duplicateKey(json.NewDecoder(bytes.NewReader(data)), ""); key != "" {
		return nil, fmt.Errorf("calibrate: profile: key %q given twice: want each key once (the later would win silently)", key)
	}
	// Presence of the coefficients: a missing one would decode as 0.
	var raw struct {
		Step map[string]json.RawMessage `json:"step"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("calibrate: profile: step: %w", err)
	}
	var missing []string
	need := func(name string, msg json.RawMessage, fields ...string) {
		var c map[string]json.RawMessage
		if err := json.Unmarshal(msg, &c); err != nil || c == nil {
			missing = append(missing, name)
			return
		}
		for _, f := range fields {
			if v, ok := c[f]; !ok || string(v) == "null" {
				missing = append(missing, name+"."+f)
			}
		}
	}
	for t := range TermDense0 {
		name := t.String()
		msg, ok := raw.Step[name]
		if !ok && t >= TermPrefillResident {
			// Written before the resident terms or cq existed: not fitted.
			*p.Step.At(t) = Coef{Status: StatusOff}
			continue
		}
		if !ok {
			missing = append(missing, "step."+name)
			continue
		}
		need("step."+name, msg, "value", "status")
	}
	if msg, ok := raw.Step["dense"]; !ok {
		// Written before the dense curve existed: c0, cp and cd hold it.
		p.Step.Dense = DenseOff()
	} else {
		var pts []json.RawMessage
		if err := json.Unmarshal(msg, &pts); err != nil || len(pts) != NumDense {
			return nil, fmt.Errorf("calibrate: profile: step.dense: want an array of %d points (at %v tokens)", NumDense, DenseKnots)
		}
		for i, pt := range pts {
			need(fmt.Sprintf("step.dense[%d]", i), pt, "tokens", "value", "status")
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("calibrate: profile: missing coefficient fields: %s", strings.Join(missing, ", "))
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// badCreatedAt finds the top-level created_at of the JSON object data
// when it holds no time that Profile.CreatedAt decodes, and returns its
// line and its JSON text.
func badCreatedAt(data []byte) (line int, value string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, "", false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, "", false
		}
		off := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, "", false
		}
		if key != "created_at" {
			continue
		}
		var t time.Time
		if json.Unmarshal(raw, &t) != nil {
			return 1 + bytes.Count(data[:off], []byte("\n")), string(raw), true
		}
	}
	return 0, "", false
}

// keyCase appends to dst, for each object key in v (decoded JSON at path)
// that matches a JSON field of t only when case is ignored, the key and
// the field's spelling. Keys that match no field are left to
// DisallowUnknownFields.
func keyCase(dst []string, v any, t reflect.Type, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := v.(type) {
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, e := range v {
				dst = keyCase(dst, e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return dst
		}
		fields := map[string]reflect.Type{}
		jsonFields(fields, t)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name := k
			if path != "" {
				name = path + "." + k
			}
			if ft, ok := fields[k]; ok {
				dst = keyCase(dst, v[k], ft, name)
				continue
			}
			for f := range fields {
				if strings.EqualFold(f, k) {
					dst = append(dst, fmt.Sprintf("%q (want %q)", name, f))
				}
			}
		}
	}
	return dst
}

// duplicateKey returns the path of the first key that an object of the
// JSON value read from dec holds twice, or "". The value has decoded
// already, so read errors cannot occur and end the walk.
func duplicateKey(dec *json.Decoder, path string) string {
	tok, err := dec.Token()
	if err != nil {
		return ""
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return ""
			}
			k, _ := kt.(string)
			name := k
			if path != "" {
				name = path + "." + k
			}
			if seen[k] {
				return name
			}
			seen[k] = true
			if d := duplicateKey(dec, name); d != "" {
				return d
			}
		}
		dec.Token() // }
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if d := duplicateKey(dec, fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		dec.Token() // ]
	}
	return ""
}

// jsonFields adds the JSON names of t's fields, embedded structs' too, to
// fields, with their types.
func jsonFields(fields map[string]reflect.Type, t reflect.Type) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported() && !f.Anonymous:
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			jsonFields(fields, f.Type)
		case name == "":
			fields[f.Name] = f.Type
		default:
			fields[name] = f.Type
		}
	}
}

// Marshal returns the profile as indented JSON with a trailing newline.
func (p *Profile) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("calibrate: profile: %w", err)
	}
	return append(b, '\n'), nil
}

// Save validates p and writes it to path atomically: to a temporary file
// in the same directory, synced, then renamed over path.
func (p *Profile) Save(path string) error {
	if err := p.Validate(); err != nil {
		return err
	}
	b, err := p.Marshal()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b); err != nil {
		return fmt.Errorf("calibrate: saving profile: %w", err)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
