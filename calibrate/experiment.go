package calibrate

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/traces"
)

// Run kinds of an experiment plan. Each kind excites different terms of
// the step-time model (terms.go).
const (
	// KindWarmup runs a few requests before anything is measured (first
	// allocations, page faults, lazy initialisation). Its rows are marked
	// Warmup and never fitted.
	KindWarmup = "warmup"
	// KindReset is the slot reset RunPlan sends before a run
	// (LiveOptions.ResetSlots). It is not part of a plan; it is recorded
	// so that calibration replays what it left in the engine's cache, and
	// never fitted.
	KindReset = "reset"
	// KindPrefill sends single requests one after another across prompt
	// lengths: every first token closes a step with one prefill and no
	// decode, so it separates c0, cp and ca.
	KindPrefill = "prefill"
	// KindDecode is a closed loop at a fixed concurrency and prompt
	// length: long stretches of pure-decode steps with a known number of
	// sequences and context, so it separates cd (per sequence) and ck (per
	// context token, the KV read).
	KindDecode = "decode"
	// KindMixed is a closed loop over staggered prompt and output
	// lengths: clients finish at different steps, so each new prompt is
	// computed beside the other clients' decoding sequences. (Staggered
	// prompts alone do not do it: an engine computes a wave of prompts in
	// the same steps, its sequences then decode in lockstep and end
	// together, and the next wave arrives at an idle engine.)
	KindMixed = "mixed"
	// KindMemory is one point of the concurrency ramp that finds the
	// engine's real limit on concurrent sequences (see ProbeConcurrency).
	KindMemory = "memory"
	// KindAdmission is a long carrier request with short probes sent one
	// after another beside it (two clients): each probe arrives at a busy
	// engine with a slot free, and the carrier's tokens time the steps
	// around its admission (admissionDelays). Its steps are fitted too.
	KindAdmission = "admission"
	// KindVerify is a verification run (servesim verify) that a refit
	// folded into a profile: not part of a plan, fitted like its runs.
	KindVerify = "verify"
)

// RunSpec is one short live run of a plan: a closed loop of Concurrency
// clients sending Requests requests back to back. Request i asks for
// Prompts[i % len(Prompts)] prompt tokens and exactly
// Outputs[i % len(Outputs)] output tokens (max_tokens; ignore_eos where
// the engine has it), request 0 Carrier tokens when that is set.
type RunSpec struct {
	Name        string // unique within the plan, e.g. "decode-c4-p512-r1"
	Kind        string // one of the Kind constants
	Concurrency int
	Prompts     []int
	Outputs     []int
	Carrier     int // output tokens of request 0 (KindAdmission); 0: as Outputs
	Requests    int
	Repeat      int // 1-based repeat of the same configuration
}

// Config names the run's configuration without its repeat number: runs
// with the same Config are repeats of each other.
func (s RunSpec) Config() string {
	return strings.TrimSuffix(s.Name, fmt.Sprintf("-r%d", s.Repeat))
}

// Rows builds the run's trace rows in memory: IDs "<name>/<i>", arrival 0
// (a closed loop ignores arrivals), the prompt and output lengths, and
// Warmup set for a warm-up run. Prompt text is made unique per request by
// the replay (a salted tag), so no prefix cache can help.
func (s RunSpec) Rows() []*traces.Request {
	rows := make([]*traces.Request, s.Requests)
	for i := range rows {
		r := &traces.Request{}
		r.Reset()
		r.ID = fmt.Sprintf("%s/%d", s.Name, i)
		r.PromptTokens = int32(s.Prompts[i%len(s.Prompts)])
		r.OutputTokens = int32(s.Outputs[i%len(s.Outputs)])
		if i == 0 && s.Carrier > 0 {
			r.OutputTokens = int32(s.Carrier)
		}
		r.Warmup = s.Kind == KindWarmup
		r.Class = s.Kind
		rows[i] = r
	}
	return rows
}

// Plan is an experiment design: the live runs a calibration makes, in
// order.
type Plan struct {
	Name string
	Runs []RunSpec
}

// PlanOptions shape NewPlan. Zero fields mean the plan's defaults.
type PlanOptions struct {
	// MaxConcurrency is the top of the memory probe's concurrency ramp.
	// It must exceed the engine's limit for the knee to be seen. 0 means
	// 8 (quick) or 32 (full).
	MaxConcurrency int
	// MaxPrompt caps the prompt lengths of the prefill sweep. 0 means 1024
	// (quick) or 2048 (full).
	MaxPrompt int
	// Repeats of every prefill and decode configuration. 0 means 2 (quick)
	// or 3 (full).
	Repeats int
}

// Plan names accepted by NewPlan.
const (
	PlanQuick = "quick"
	PlanFull  = "full"
)

// NewPlan returns the named experiment design:
//
//   - quick: under 3 minutes of live runs on servesim's CPU test engine
//     (a tiny model on one thread: 1m37s–2m15s on two cores where prefill
//     takes ≈ 0.5 ms a token and one-sequence decode ≈ 3 ms a step).
//     Prefill sweep 32..1024 tokens (4 output tokens);
//     decode at concurrency 1, 2, 4 with 64- and 512-token prompts
//     (64 output tokens, two rounds per client); an admission run (a
//     192-token carrier and eight 4-token probes with 64-token prompts,
//     two clients); one mixed run at concurrency 4 over staggered prompt
//     and output lengths (16 requests, 20..60 output tokens), most of
//     whose prompts are computed beside three decoding sequences;
//     a concurrency ramp 1..8 with 512-token prompts and 32 output tokens.
//   - full: the same design, wider: prefill 32..2048, decode at 1..16
//     clients with 64-, 512- and 2048-token prompts, ramp to 32, three
//     repeats. Minutes on a GPU, too long for a CPU engine (1h16m of live
//     runs on the CPU test engine, BENCHMARKS.md).
//
// Every plan starts with a warm-up run (WarmupRun).
func NewPlan(name string, opt PlanOptions) (*Plan, error) {
	var (
		prompts    []int
		concs      []int
		decodeCtx  []int
		decodeOut  int
		maxConc    int
		maxPrompt  int
		repeats    int
		memPrompt  = 512
		memOut     = 32
		mixPrompts = []int{32, 256, 128, 512, 64, 384}
		// Five output lengths against four clients: no two clients stay
		// in step, so a new prompt arrives while the others decode.
		mixOutputs  = []int{48, 20, 36, 60, 28}
		mixConc     = 4
		mixRequests = 16
	)
	switch name {
	case PlanQuick:
		// Five lengths: ten (every knot of the dense curve and the
		// midpoints) did not lower the held-out error of the one
		// calibration refitted both ways, and took the plan past 3 minutes
		// of live time on a slow host.
		prompts = []int{32, 128, 256, 512, 1024}
		concs = []int{1, 2, 4}
		decodeCtx = []int{64, 512}
		decodeOut = 64
		maxConc, maxPrompt, repeats = 8, 1024, 2
	case PlanFull:
		prompts = []int{32, 64, 128, 256, 512, 1024, 2048}
		concs = []int{1, 2, 4, 8, 16}
		decodeCtx = []int{64, 512, 2048}
		decodeOut = 128
		maxConc, maxPrompt, repeats = 32, 2048, 3
		mixConc, mixRequests = 8, 32
	default:
		return nil, fmt.Errorf("calibrate: unknown plan %q (want %s or %s)", name, PlanQuick, PlanFull)
	}
	if opt.MaxConcurrency < 0 || opt.MaxPrompt < 0 || opt.Repeats < 0 {
		return nil, fmt.Errorf("calibrate: plan options must be ≥ 0 (got %+v)", opt)
	}
	if opt.MaxConcurrency > 0 {
		maxConc = opt.MaxConcurrency
	}
	if opt.MaxPrompt > 0 {
		maxPrompt = opt.MaxPrompt
	}
	if opt.Repeats > 0 {
		repeats = opt.Repeats
	}
	capPrompts := func(v []int) []int {
		out := slices.DeleteFunc(slices.Clone(v), func(p int) bool { return p > maxPrompt })
		if len(out) == 0 {
			out = []int{maxPrompt}
		}
		return out
	}
	prompts, decodeCtx, mixPrompts = capPrompts(prompts), capPrompts(decodeCtx), capPrompts(mixPrompts)
	memPrompt = min(memPrompt, maxPrompt)

	p := &Plan{Name: name}
	// The longest prompt at every decode client at once: more cells than
	// any prefill, decode or mixed run attends over, and the largest single
	// step of the plan, which is what sets a first touch's slowdown (the
	// memory ramp, meant to pass the engine's limit, holds more cells in
	// all, in smaller steps). The longest the plan sends, not
	// MaxPrompt, which only caps the lengths: a MaxPrompt above them would
	// make a warm-up longer than anything measured, which an engine's
	// context may refuse (and then nothing is warmed).
	longest := slices.Max(slices.Concat(prompts, decodeCtx, mixPrompts, []int{memPrompt}))
	p.Runs = append(p.Runs, WarmupRun(slices.Max(concs)*longest-1))
	// Interleave repeats so that slow drift (thermal, other tenants) is
	// spread over configurations instead of aliasing with one of them.
	for r := 1; r <= repeats; r++ {
		// Each length three times: a prompt step is one observation of
		// the curve at its width, and the sweep costs seconds.
		p.Runs = append(p.Runs, RunSpec{Name: fmt.Sprintf("prefill-r%d", r), Kind: KindPrefill, Concurrency: 1,
			Prompts: prompts, Outputs: []int{4}, Requests: 3 * len(prompts), Repeat: r})
		for _, c := range concs {
			for _, ctx := range decodeCtx {
				p.Runs = append(p.Runs, RunSpec{Name: fmt.Sprintf("decode-c%d-p%d-r%d", c, ctx, r), Kind: KindDecode,
					Concurrency: c, Prompts: []int{ctx}, Outputs: []int{decodeOut}, Requests: 2 * c, Repeat: r})
			}
		}
		// The carrier outlasts its probes: each costs a prefill and three
		// decode steps beside it, plus its admission delay.
		p.Runs = append(p.Runs, RunSpec{Name: fmt.Sprintf("admission-r%d", r), Kind: KindAdmission, Concurrency: 2,
			Prompts: []int{decodeCtx[0]}, Outputs: []int{4}, Carrier: 3 * decodeOut, Requests: 9, Repeat: r})
	}
	p.Runs = append(p.Runs, RunSpec{Name: fmt.Sprintf("mixed-c%d-r1", mixConc), Kind: KindMixed, Concurrency: mixConc,
		Prompts: mixPrompts, Outputs: mixOutputs, Requests: mixRequests, Repeat: 1})
	for _, c := range Ramp(maxConc) {
		p.Runs = append(p.Runs, RunSpec{Name: fmt.Sprintf("memory-c%d-r1", c), Kind: KindMemory, Concurrency: c,
			Prompts: []int{memPrompt}, Outputs: []int{memOut}, Requests: 2 * c, Repeat: 1})
	}
	return p, nil
}

// WarmupRun is the run that opens a plan (and every verification run):
// one request of long prompt tokens and one output token, then a short
// one. An engine touches its working memory the first time a step needs
// it: on servesim's CPU test engine the first prompt to attend over more
// cells than any before took 7–32% longer than the same prompt later
// (BENCHMARKS.md, "First touch"), which no step-time model should learn.
// The long request runs the largest attention shape before anything is
// measured. The short one opens like it (the run's tag), so an engine
// with a per-slot prompt cache gives it the long one's slot and frees
// that slot's cells: later runs start from a cache laid out as a fresh
// engine's. A long request the engine refuses is only counted as failed.
func WarmupRun(long int) RunSpec {
	return RunSpec{Name: "warmup", Kind: KindWarmup, Concurrency: 1, Prompts: []int{max(long, 1), 64}, Outputs: []int{1, 8}, Requests: 2, Repeat: 1}
}

// Ramp returns the concurrency ramp up to top: 1, 2, 3, 4, 6, 8, 12, 16,
// 24, 32, … (powers of two and the midpoints between them), ending at top.
func Ramp(top int) []int {
	var out []int
	for c := 1; c < top; {
		out = append(out, c)
		switch {
		case c < 4:
			c++
		case c&(c-1) == 0: // a power of two: next is 1.5×
			c += c / 2
		default:
			c = c / 3 * 4
		}
	}
	return append(out, max(top, 1))
}

// Requests is the number of requests the plan sends.
func (p *Plan) Requests() int {
	n := 0
	for _, r := range p.Runs {
		n += r.Requests
	}
	return n
}

// Slots is the plan's highest concurrency: the one-token requests each
// slot reset sends at once (LiveOptions.ResetSlots).
func (p *Plan) Slots() int {
	n := 0
	for _, r := range p.Runs {
		n = max(n, r.Concurrency)
	}
	return n
}

// PromptLengths returns the distinct prompt lengths the plan measures
// (the warm-up's aside), sorted.
func (p *Plan) PromptLengths() []int {
	var out []int
	for _, r := range p.Runs {
		if r.Kind == KindWarmup {
			continue
		}
		for _, n := range r.Prompts {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Print writes the plan, one line per run: kind, concurrency, prompt and
// output lengths, requests; then its totals per kind of run and overall.
func (p *Plan) Print(w io.Writer) {
	runs, reqs, warm := 0, 0, 0
	for _, r := range p.Runs {
		if r.Kind == KindWarmup {
			warm += r.Requests
			continue
		}
		runs++
		reqs += r.Requests
	}
	fmt.Fprintf(w, "plan %s: %d runs, %d requests, after a warm-up of %d requests, not measured (closed loop; fixed output lengths; unique prompts)\n",
		p.Name, runs, reqs, warm)
	fmt.Fprintf(w, "  %-3s %-22s %-9s %5s %-28s %14s %8s\n", "#", "run", "kind", "conc", "prompt tokens", "output", "requests")
	for i, r := range p.Runs {
		out := joinInts(r.Outputs)
		if r.Carrier > 0 {
			out = fmt.Sprintf("%s (first %d)", out, r.Carrier)
		}
		fmt.Fprintf(w, "  %-3d %-22s %-9s %5d %-28s %14s %8d\n", i, r.Name, r.Kind, r.Concurrency, joinInts(r.Prompts), out, r.Requests)
	}
	p.printTotals(w)
}

// planTotal is the size of a part of a plan: what the engine computes.
type planTotal struct {
	kind            string
	requests        int
	prompt, outputs int64
}

// add counts run r in t.
func (t *planTotal) add(r RunSpec) {
	prompt, outputs := r.tokens()
	t.requests += r.Requests
	t.prompt += prompt
	t.outputs += outputs
}

// printTotals writes the plan's size per kind of run, in the plan's order,
// and overall, the warm-up included: a user judges the engine time by it
// before the runs start.
func (p *Plan) printTotals(w io.Writer) {
	var kinds []*planTotal
	all := planTotal{kind: "all"}
	for _, r := range p.Runs {
		i := slices.IndexFunc(kinds, func(t *planTotal) bool { return t.kind == r.Kind })
		if i < 0 {
			kinds = append(kinds, &planTotal{kind: r.Kind})
			i = len(kinds) - 1
		}
		kinds[i].add(r)
		all.add(r)
	}
	fmt.Fprintf(w, "  totals      %8s %14s %14s\n", "requests", "prompt tokens", "output tokens")
	for _, t := range append(kinds, &all) {
		note := ""
		if t == &all {
			note = "  (the warm-up included)"
		}
		fmt.Fprintf(w, "    %-9s %8d %14d %14d%s\n", t.kind, t.requests, t.prompt, t.outputs, note)
	}
}

// tokens is the prompt and output tokens the run's requests ask for, as
// Rows builds them: the lengths cycle over the requests, and the first
// asks for the carrier's output when there is one.
func (s RunSpec) tokens() (prompt, output int64) {
	if len(s.Prompts) == 0 || len(s.Outputs) == 0 {
		return 0, 0
	}
	for i := range s.Requests {
		prompt += int64(s.Prompts[i%len(s.Prompts)])
		if i == 0 && s.Carrier > 0 {
			output += int64(s.Carrier)
		} else {
			output += int64(s.Outputs[i%len(s.Outputs)])
		}
	}
	return prompt, output
}

// joinInts writes v comma-separated.
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// Validate checks every run of p.
func (p *Plan) Validate() error {
	seen := map[string]bool{}
	for i, r := range p.Runs {
		switch {
		case r.Name == "" || seen[r.Name]:
			return fmt.Errorf("calibrate: plan run %d: name %q empty or repeated", i, r.Name)
		case !slices.Contains([]string{KindWarmup, KindPrefill, KindDecode, KindMixed, KindMemory, KindAdmission}, r.Kind):
			return fmt.Errorf("calibrate: plan run %s: unknown kind %q", r.Name, r.Kind)
		case r.Concurrency < 1 || r.Requests < 1 || len(r.Prompts) == 0 || len(r.Outputs) == 0:
			return fmt.Errorf("calibrate: plan run %s: concurrency and requests must be ≥ 1, prompt and output lengths given", r.Name)
		case r.Carrier < 0:
			return fmt.Errorf("calibrate: plan run %s: carrier %d < 0", r.Name, r.Carrier)
		}
		for _, n := range r.Prompts {
			if n < 1 {
				return fmt.Errorf("calibrate: plan run %s: prompt length %d < 1", r.Name, n)
			}
		}
		for _, n := range r.Outputs {
			if n < 1 {
				return fmt.Errorf("calibrate: plan run %s: output length %d < 1", r.Name, n)
			}
		}
		seen[r.Name] = true
	}
	return nil
}

// SliceReader is a traces.Reader over requests in memory. It yields the
// slice's rows themselves (not copies); Close does nothing.
type SliceReader struct {
	MetaData traces.Meta
	Rows     []*traces.Request
	i        int
}

// NewSliceReader returns a reader over rows.
func NewSliceReader(meta traces.Meta, rows []*traces.Request) *SliceReader {
	return &SliceReader{MetaData: meta, Rows: rows}
}

// Meta implements traces.Reader.
func (r *SliceReader) Meta() traces.Meta { return r.MetaData }

// Next implements traces.Reader.
func (r *SliceReader) Next() bool {
	if r.i >= len(r.Rows) {
		return false
	}
	r.i++
	return true
}

// At implements traces.Reader.
func (r *SliceReader) At() *traces.Request { return r.Rows[r.i-1] }

// Err implements traces.Reader; it is always nil.
func (r *SliceReader) Err() error { return nil }

// Close implements traces.Reader.
func (r *SliceReader) Close() error { return nil }

// SliceWriter is a traces.Writer that keeps the rows written, in order.
// It keeps the pointers it is given (replay.Run hands over ownership).
type SliceWriter struct {
	Rows []*traces.Request
}

// Write implements traces.Writer.
func (w *SliceWriter) Write(r *traces.Request) error {
	w.Rows = append(w.Rows, r)
	return nil
}

// Close implements traces.Writer.
func (w *SliceWriter) Close() error { return nil }

// Abort implements traces.Writer.
func (w *SliceWriter) Abort() {}
