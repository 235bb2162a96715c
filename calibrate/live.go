package calibrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/dirmatch"
	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// LiveOptions configure RunPlan.
type LiveOptions struct {
	// Replay is the client configuration (BaseURL, Model, APIKeyEnv,
	// Endpoint, Timeout, IgnoreEOS, Text...). Arrival, Concurrency and
	// Repeat are set per run. When Text is zero it is calibrated once,
	// before the first run (replay.Calibrate), and reused.
	Replay replay.Config
	// TraceDir, when not empty, receives every run's rows as
	// NN-<run>.parquet (created if needed, NN counting the files written,
	// slot resets included), so that a profile can cite them by SHA-256.
	TraceDir string
	// Meta is copied into every trace written (engine, model, device...).
	Meta traces.Meta
	// Log receives one progress line per run; nil means none.
	Log io.Writer
	// ResetSlots sends, before each run, as many one-token requests at
	// once as the plan's highest concurrency, and discards them. Engines
	// that keep a finished request's tokens in its idle slot (llama.cpp
	// and Ollama: a per-slot prompt cache in one KV cache that every step
	// attends over) make a step's cost depend on what earlier runs left
	// behind; the reset gives every run a known start: slots holding
	// ResetPromptTokens+1 tokens before odd repeats (the first, the third)
	// and LongResetPromptTokens+1 before even ones, so that the fit sees
	// the cost of idle slots' tokens apart from the batch's own. Each reset is
	// returned and written as a run of kind KindReset: which slot each
	// request gets depends on when it reaches the engine (one that arrives
	// after another finished takes its slot), so the calibration replays
	// the reset's recorded times rather than assuming its outcome.
	ResetSlots bool
}

// RunResult is one completed live run.
type RunResult struct {
	Spec RunSpec
	// SlotReset is the tokens each engine slot held at the start of the
	// run after LiveOptions.ResetSlots; 0: not reset.
	SlotReset int64
	// Slots, when > 0, says the run had an engine of its own, started
	// empty with this many slots (a verification run: the candidate's
	// max_num_seqs); 0: the calibration's engine, whose slots are the
	// measured concurrency limit and carry over from run to run.
	Slots int
	// Shared is the prompt tokens every request of the run shares at its
	// start (replay.RunTagBytes in tokens of the run's text model), and
	// so does every slot-reset request before it with the others; 0:
	// unknown (traces written before it was recorded).
	Shared int32
	// Salt is the replay's prompt salt (replay.Config.Salt) and Text its
	// text model: with them calibration rebuilds how each prompt opens,
	// and so what an engine's prompt cache shares between any two
	// requests. Salt 0: unknown (traces written before it was recorded).
	Salt    uint64
	Text    replay.TextModel
	Rows    []*traces.Request // observed columns filled; in completion order live, in input order read back
	Summary *replay.Summary
	Wall    time.Duration // wall-clock time of the run, set-up included
	Trace   *TraceRef     // the Parquet file written, nil without TraceDir
	Meta    traces.Meta   // the trace's metadata: as RunPlan writes it, or as read back (ReadRun)
}

// RunPlan runs every run of plan against the live engine with
// replay.Run, one after another, each as a closed loop of its
// concurrency, and returns the runs in plan order, each after its slot
// reset (KindReset) when LiveOptions.ResetSlots is set. Rows are built in
// memory (RunSpec.Rows); the replay salts prompts, so no run can hit the
// engine's prefix cache. It stops at the first run that fails as a whole
// (configuration, text-model calibration, write error, ctx) and returns
// the runs so far with the error; failed requests do not stop it (they are
// counted in each run's Summary and left out of the fit), nor does a trace
// renamed into place whose directory was not synced: every run then
// returns, with an error wrapping atomicfile.ErrDirNotSynced. A failure
// after such a trace is returned joined with its error, the failure first.
func RunPlan(ctx context.Context, plan *Plan, opt LiveOptions) ([]*RunResult, replay.TextModel, error) {
	if err := plan.Validate(); err != nil {
		return nil, replay.TextModel{}, err
	}
	cfg := opt.Replay
	if cfg.Text.IsZero() {
		tm, err := replay.Calibrate(ctx, cfg)
		if err != nil {
			return nil, tm, err
		}
		tm.Prefix = cfg.Text.Prefix
		cfg.Text = tm
	}
	if opt.TraceDir != "" {
		if err := os.MkdirAll(opt.TraceDir, 0o755); err != nil {
			return nil, cfg.Text, fmt.Errorf("calibrate: trace dir: %w", err)
		}
	}
	slots := plan.Slots()
	// A refit's warning of outputs stopped at EOS says whether the
	// requests asked the engine to ignore it; how chunks' tokens were
	// counted is kept with them.
	meta := opt.Meta.Clone()
	meta.Set(IgnoreEOSKey, strconv.FormatBool(cfg.IgnoreEOS))
	meta.Set(ContinuousUsageKey, strconv.FormatBool(cfg.ContinuousUsage))
	// Progress counts the measured runs, as the plan's header does; the
	// warm-up is told apart.
	measured, done := 0, 0
	for _, spec := range plan.Runs {
		if spec.Kind != KindWarmup {
			measured++
		}
	}
	var out []*RunResult
	// Traces renamed into place whose directory was not synced are
	// written: the runs go on, and their errors are returned at the end.
	var notSynced []error
	// failed is a failure that stops the runs, with the unsynced traces
	// before it: those are written, and a crash may yet undo them.
	failed := func(err error) error {
		return errors.Join(append([]error{err}, notSynced...)...)
	}
	save := func(res *RunResult) error {
		// What a refit reads back: Analyze takes the engine's kind from it.
		res.Meta = runMeta(meta, res, cfg.Text)
		if opt.TraceDir != "" {
			path := filepath.Join(opt.TraceDir, fmt.Sprintf("%02d-%s.parquet", len(out), res.Spec.Name))
			if err := writeRun(path, meta, res, cfg.Text); err != nil {
				if !atomicfile.OnlyNotSynced(err) {
					return err
				}
				notSynced = append(notSynced, err)
			}
			ref, err := NewTraceRef(path)
			if err != nil {
				return err
			}
			res.Trace = &ref
		}
		out = append(out, res)
		return nil
	}
	for _, spec := range plan.Runs {
		var reset int64
		if opt.ResetSlots {
			prompt := ResetPromptTokens
			if spec.Repeat%2 == 0 {
				prompt = LongResetPromptTokens
			}
			salt := rand.Uint64() | 1
			rows, err := resetSlots(ctx, cfg, slots, prompt, salt)
			if err != nil {
				return out, cfg.Text, failed(fmt.Errorf("calibrate: before run %s: %w", spec.Name, err))
			}
			// The engine's count, where it gave one: a prompt shorter than
			// the chat template's own tokens comes out longer than asked.
			reset = int64(prompt)
			for _, r := range rows {
				reset = max(reset, int64(r.UsagePrompt))
			}
			reset++
			rs := RunSpec{Name: "reset", Kind: KindReset, Concurrency: slots, Prompts: []int{prompt}, Outputs: []int{1}, Requests: slots, Repeat: 1}
			if err := save(&RunResult{Spec: rs, Shared: sharedTokens(cfg.Text), Salt: salt, Text: cfg.Text, Rows: rows, Summary: Summarize(rows)}); err != nil {
				return out, cfg.Text, failed(err)
			}
		}
		salt := rand.Uint64() | 1 // unique prompts across runs too
		t0 := time.Now()
		rows, sum, err := spec.Send(ctx, cfg, salt)
		res := &RunResult{Spec: spec, SlotReset: reset, Shared: sharedTokens(cfg.Text), Salt: salt, Text: cfg.Text,
			Rows: rows, Summary: sum, Wall: time.Since(t0)}
		if err != nil {
			return out, cfg.Text, failed(fmt.Errorf("calibrate: run %s: %w", spec.Name, err))
		}
		if err := save(res); err != nil {
			return out, cfg.Text, failed(err)
		}
		if opt.Log != nil {
			s := sum
			// The Summary counts warm-up requests sent, not which of them
			// succeeded.
			warmOK := 0
			for _, r := range rows {
				if r.Warmup && r.Succeeded() {
					warmOK++
				}
			}
			n := " -"
			if spec.Kind != KindWarmup {
				done++
				n = fmt.Sprintf("%2d", done)
			}
			fmt.Fprintf(opt.Log, "  [%s/%d] %-22s %5.1fs  ok %d/%d  TTFT mean %s  TPOT mean %s  %.1f tok/s\n",
				n, measured, spec.Name, res.Wall.Seconds(), s.Succeeded+warmOK, s.Sent+s.Warmup,
				ms(s.TTFT.Mean), ms(s.TPOT.Mean), s.OutputTokensPerSec)
		}
	}
	return out, cfg.Text, errors.Join(notSynced...)
}

// IgnoreEOSKey is the run traces' metadata key that says whether the
// requests were sent with ignore_eos ("true", "false"; absent in traces
// written before it was recorded).
const IgnoreEOSKey = "ignore_eos"

// ContinuousUsageKey is the run traces' metadata key that says whether the
// requests asked for usage on every chunk (replay.Config.ContinuousUsage),
// which decides how a chunk's tokens were timed ("true", "false"; absent
// in traces written before it was recorded).
const ContinuousUsageKey = "continuous_usage"

// TensorParallelKey and KVBlockSizeKey are the run traces' metadata keys
// for the engine's tensor-parallel degree and KV block size in tokens,
// as calibrate was told them, so that a refit keeps them; absent when
// unknown, and in traces written before they were recorded. (The
// traces' own block_size is that of their prefix hashes.)
const (
	TensorParallelKey = "tensor_parallel"
	KVBlockSizeKey    = "kv_block_size"
)

// EngineArgsKey is the run traces' metadata key for the engine's
// arguments as a JSON array of strings: the traces' engine_args joins
// them with spaces, which splits an argument that holds one. Absent in
// traces written before it was recorded.
const EngineArgsKey = "engine_args_list"

// ReportedKVKey is the run traces' metadata key for the KV capacity the
// engine reported on /metrics before the runs (ReportedKV as JSON), so
// that a refit keeps it; absent when the engine reported none, and in
// traces written before it was recorded.
const ReportedKVKey = "kv_reported"

// GPUDevicesKey is the run traces' metadata key for the GPUs the engine
// ran on (calibrate's --gpu-devices, comma-separated), whose samples in
// the traces' gpu.csv a refit fits power to; absent when not given (every
// GPU of the host), and in traces written before it was recorded.
const GPUDevicesKey = "gpu_devices"

// EngineVersionKey is the run traces' metadata key for the engine's
// version alone: their engine is name and version joined by a space,
// which does not say which is which when one is missing; empty when only
// the name is known. Absent when neither is known, and in traces written
// before it was recorded.
const EngineVersionKey = "engine_version"

// EarlyStops counts the run's successful requests and those of them that
// ended with fewer output tokens than they asked for (max_tokens): an
// engine that stopped them at EOS, or a limit of its that cut them
// (LimitStops). The fit takes the steps as they came,
// but the run lost the shape its plan gave it (staggered ends, the
// admission run's long carrier). Warm-up rows are left out: they are not
// measured, and have no shape to lose.
func (r *RunResult) EarlyStops() (short, succeeded int) {
	for _, row := range r.Rows {
		if !row.Succeeded() || row.Warmup {
			continue
		}
		succeeded++
		if row.UsageOutput != traces.Missing && row.UsageOutput < row.OutputTokens {
			short++
		}
	}
	return short, succeeded
}

// LimitStops counts the run's successful requests, warm-up aside, that
// ended with fewer output tokens than they asked for and finish_reason
// "length": a limit of the engine's (its context, or a server-side cap on
// output tokens) cut them, not EOS, so ignore_eos does not lift it. They
// are among EarlyStops' short ones.
func (r *RunResult) LimitStops() int {
	n := 0
	for _, row := range r.Rows {
		if row.Succeeded() && !row.Warmup && row.UsageOutput != traces.Missing && row.UsageOutput < row.OutputTokens && row.FinishReason == "length" {
			n++
		}
	}
	return n
}

// Send replays the run's rows once against cfg's engine, as a closed loop
// of the run's concurrency with prompts of salt, and returns them with
// their observed columns filled, in completion order. Failed requests are
// in the rows and the Summary; an error is a failure of the run as a whole.
func (s RunSpec) Send(ctx context.Context, cfg replay.Config, salt uint64) ([]*traces.Request, *replay.Summary, error) {
	cfg.Arrival, cfg.Concurrency, cfg.Repeat, cfg.Salt = replay.Closed, s.Concurrency, 1, salt
	w := &SliceWriter{}
	sum, err := replay.Run(ctx, cfg, NewSliceReader(traces.Meta{}, s.Rows()), w)
	return w.Rows, sum, err
}

// resetSlots sends n single-token requests with prompts of prompt tokens
// at once, waits for them and returns their rows; any failure is an error
// (the engine is unwell).
func resetSlots(ctx context.Context, cfg replay.Config, n, prompt int, salt uint64) ([]*traces.Request, error) {
	rows := make([]*traces.Request, n)
	for i := range rows {
		r := &traces.Request{}
		r.Reset()
		r.ID = fmt.Sprintf("reset/%d", i)
		r.PromptTokens, r.OutputTokens = int32(prompt), 1
		rows[i] = r
	}
	cfg.Arrival, cfg.Concurrency, cfg.Repeat, cfg.Salt = replay.Closed, n, 1, salt
	w := &SliceWriter{}
	sum, err := replay.Run(ctx, cfg, NewSliceReader(traces.Meta{}, rows), w)
	if err != nil {
		return nil, err
	}
	if sum.Failed > 0 {
		// what the engine answered, as a failed run's rows record it
		first := ""
		for _, r := range w.Rows {
			if r.Error != "" {
				first = r.Error
				break
			}
		}
		return nil, fmt.Errorf("%d of %d slot-reset requests failed (%v; the first: %s)", sum.Failed, n, sum.FailedByKind, first)
	}
	return w.Rows, nil
}

// sharedTokens is replay.RunTagBytes in tokens of text model tm.
func sharedTokens(tm replay.TextModel) int32 {
	return int32(math.Round(float64(replay.RunTagBytes) * tm.TokensPerByte))
}

func ms(d time.Duration) string {
	if d == 0 {
		return "   n/a"
	}
	return fmt.Sprintf("%6.1fms", float64(d)/1e6)
}

// writeRun writes one run's rows, in input order, to a Parquet file,
// with meta and the run's own keys (runMeta).
func writeRun(path string, meta traces.Meta, res *RunResult, tm replay.TextModel) error {
	rows := res.Rows
	m := runMeta(meta, res, tm)
	sorted := slices.Clone(rows)
	sort.SliceStable(sorted, func(i, j int) bool { return rowIndex(sorted[i].ID) < rowIndex(sorted[j].ID) })
	if err := traces.WriteAll(path, m, sorted); err != nil {
		return fmt.Errorf("calibrate: writing %s: %w", path, err)
	}
	return nil
}

// runMeta is meta with the keys that describe one run of tm's text model.
func runMeta(meta traces.Meta, res *RunResult, tm replay.TextModel) traces.Meta {
	spec := res.Spec
	m := meta.Clone()
	if m.Source == "" {
		m.Source = "live"
	}
	m.BatchPolicy = fmt.Sprintf("closed loop, %d clients", spec.Concurrency)
	m.Set("calibrate_run", spec.Name)
	m.Set("calibrate_kind", spec.Kind)
	m.Set("arrival", "closed")
	m.Set("concurrency", fmt.Sprint(spec.Concurrency))
	m.Set("slot_reset_tokens", strconv.FormatInt(res.SlotReset, 10))
	m.Set("shared_prompt_tokens", strconv.Itoa(int(res.Shared)))
	m.Set("text_model", fmt.Sprintf("tokens = %g × bytes + %g", tm.TokensPerByte, tm.Overhead))
	m.Set("tokens_per_byte", strconv.FormatFloat(tm.TokensPerByte, 'g', -1, 64))
	m.Set("prompt_overhead_tokens", strconv.FormatFloat(tm.Overhead, 'g', -1, 64))
	m.Set("prompt_prefix_tokens", strconv.FormatFloat(tm.Prefix, 'g', -1, 64))
	m.Set("prompt_salt", strconv.FormatUint(res.Salt, 10))
	return m
}

// rowIndex parses the "<run>/<i>" IDs of RunSpec.Rows (-1 if malformed).
func rowIndex(id string) int {
	n := -1
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '/' {
			if _, err := fmt.Sscan(id[i+1:], &n); err != nil {
				return -1
			}
			break
		}
	}
	return n
}

// AnalyzeOptions tune Analyze. Zero fields mean the defaults.
type AnalyzeOptions struct {
	// HeldOutK is the number of folds of the cross-validation over whole
	// runs (CrossCheck). 0 means 4.
	HeldOutK int
	// Window averages runs of up to Window consecutive pure-decode steps
	// (back to back, no prefill) into one observation; see WindowSteps.
	// 0 means 8; 1 fits single steps.
	Window int
	// Relative weighs each observation by k/predicted² (k: steps
	// averaged; FitSettings.Relative), so the fit minimises relative
	// rather than absolute error: long prefill steps then do not drown
	// out the short decode steps that TPOT depends on. Without it each
	// observation weighs k. Ignored when Fit is set (Fit.Relative
	// decides).
	Relative bool
	// NoTrim keeps every observation. By default Analyze fits, drops the
	// observations the fit misses by more than 100%, refits, drops those
	// missed by more than 50%, and refits (the count is reported; a miss
	// is relative to the smaller of the observed and predicted times, see
	// fitTrimmed). What it
	// drops on a live client are measurement artefacts: a first token the
	// server delivered a step late looks like a whole prompt prefilled in
	// one 10 ms step, and a stall of the client or the host looks like a
	// slow step. The held-out checks (on windows and on single steps)
	// trim each fold's training part by fits to that part alone, and
	// predict every held-out observation, artefacts included.
	NoTrim bool
	// Linear fits c0 + cp·prefill + cd·decode instead of the dense curve
	// of the step's tokens (FitSettings.Curve). Ignored when Fit is set.
	Linear bool
	// Collinearity and Confidence are the fit's collinearity threshold and
	// confidence level (FitSettings); 0 means DefaultCollinearity and
	// DefaultConfidence. A refit takes them from the profile's method.
	// Ignored when Fit is set.
	Collinearity float64
	Confidence   float64
	// Without holds the terms it marks at 0 (status off), to compare
	// models by their held-out error. Applied on top of Fit.
	Without [NumTerms]bool
	// With fits the terms it marks where Analyze would hold them at 0
	// (the resident terms without an engine of slots, the per-sequence
	// attention terms with one), as a refit of a profile whose caller's
	// Fit fitted them must. Ignored when Fit is set; Without wins.
	With [NumTerms]bool
	// Recover tunes step recovery. nil means a per-run Tolerance (see
	// LiveToleranceFraction).
	Recover *RecoverSettings
	// Fit replaces the fit settings Analyze chooses; its Weights, if any,
	// are per observation of the windowed steps, late first tokens
	// included (see lateFirsts).
	Fit *FitSettings
}

// LiveToleranceFraction sets the step-boundary clustering window Analyze
// uses by default, per run: this fraction of the run's median
// inter-token gap (gaps under 100 µs, tokens received together, left
// out). RecoverSteps' own default (half the shortest gap) fails on a live
// client: tokens of one step reach different streams a few ms apart (the
// engine samples and flushes sequences one after another), and single
// gaps can be far below a step (tokens delivered in bursts), so
// boundaries split and requests look preempted.
const LiveToleranceFraction = 0.35

// liveTolerance is LiveToleranceFraction × the median inter-token gap of
// rows, in ns (0 when no gap is known: RecoverSteps' default).
func liveTolerance(rows []*traces.Request) int64 {
	var gaps []float64
	for _, r := range rows {
		for k := 1; k < len(r.TokenTimes); k++ {
			if g := r.TokenTimes[k] - r.TokenTimes[k-1]; g >= 100_000 {
				gaps = append(gaps, float64(g))
			}
		}
	}
	return int64(LiveToleranceFraction * median(gaps))
}

// resetTolerance groups the first tokens of slot resets into engine steps.
// Their requests make one token each, so there is no gap between tokens
// to measure by: it is LiveToleranceFraction × the shortest time to first
// token of any reset, an upper bound on the shortest step that prefills
// reset prompts (on the CPU test engine one step's first tokens reach the
// client up to about 10 ms apart, and such steps take 25 ms or more).
func resetTolerance(runs []*RunResult) int64 {
	ttft := math.Inf(1)
	for _, r := range runs {
		if r.Spec.Kind != KindReset {
			continue
		}
		for _, q := range r.Rows {
			if len(q.TokenTimes) > 0 && q.ActualSend != traces.Missing {
				ttft = math.Min(ttft, float64(q.TokenTimes[0]-q.ActualSend))
			}
		}
	}
	if math.IsInf(ttft, 1) {
		return 0
	}
	return int64(LiveToleranceFraction * ttft)
}

// WindowSteps averages runs of consecutive pure-decode observations into
// windows of at most w steps and appends them to dst: steps of one run,
// each starting where the previous ended, with one decode count, no
// prefill and not from idle. A window's features and Seconds are the means over its steps (the
// model is linear, so the mean step obeys it exactly), Start and End span
// the window, and the window's step count is appended to counts. Other
// observations pass through unchanged with count 1.
//
// Why: a live client timestamps tokens when it reads them, so every
// boundary carries the delivery jitter of the server's stream (on the CPU
// test engine, ±5 ms on a 10 ms decode step). The jitter of interior
// boundaries cancels in a window's mean, which measures the engine's step
// time to within jitter/w.
func WindowSteps(dst []Observation, counts []float64, obs []Observation, w int) ([]Observation, []float64) {
	if w < 1 {
		w = 1
	}
	for i := 0; i < len(obs); {
		o := obs[i]
		if o.PrefillTokens > 0 || o.FromIdle || w == 1 {
			dst, counts = append(dst, o), append(counts, 1)
			i++
			continue
		}
		j := i + 1
		// One decode count a window: the dense terms are not linear in it,
		// so a mean count would not give the mean of its steps' features.
		for j < len(obs) && j-i < w && obs[j].Run == o.Run && obs[j].Start == obs[j-1].End &&
			obs[j].PrefillTokens == 0 && !obs[j].FromIdle && obs[j].DecodeSeqs == o.DecodeSeqs {
			j++
		}
		k := float64(j - i)
		m := Observation{Start: o.Start, End: obs[j-1].End, Run: o.Run}
		for _, x := range obs[i:j] {
			m.DecodeSeqs += x.DecodeSeqs / k
			m.DecodeContext += x.DecodeContext / k
			m.PrefillAttn += x.PrefillAttn / k
			m.PrefillResident += x.PrefillResident / k
			m.DecodeResident += x.DecodeResident / k
			m.Resident += x.Resident / k
			m.AfterPrefill += x.AfterPrefill / k
		}
		m.Seconds = float64(m.End-m.Start) * 1e-9 / k
		dst, counts = append(dst, m), append(counts, k)
		i = j
	}
	return dst, counts
}

// markAfterPrefill sets AfterPrefill on the steps without prompt tokens
// among the sim.PostPrefillSteps after one with some, run by run (steps
// are in time order within a run), as the simulator charges them. Steps
// are counted by their boundaries (Observation.Boundary) where both are
// known: a step recovery dropped between two kept ones is a step of the
// engine all the same, and so is a prompt's step it dropped
// (Observation.PromptBoundary).
func markAfterPrefill(steps []Observation) {
	since, run, last := sim.PostPrefillSteps, -1, 0
	for i := range steps {
		o := &steps[i]
		if o.Run != run {
			run, since, last = o.Run, sim.PostPrefillSteps, 0
		}
		if o.PrefillTokens > 0 {
			since, last = 0, o.Boundary
			continue
		}
		last = max(last, o.PromptBoundary)
		if last > 0 && o.Boundary > last {
			since = o.Boundary - last - 1 // the steps between them
		}
		if since < sim.PostPrefillSteps {
			o.AfterPrefill = 1
		}
		since++
	}
}

// Analysis is what the live runs say about the engine.
type Analysis struct {
	Steps        []Observation // recovered steps of the fitted runs (Run = index into Runs)
	Observations []Observation // Steps with pure-decode runs averaged in windows (WindowSteps): what is fitted
	StepCounts   []float64     // steps behind each observation
	Relative     bool          // observations were weighted for relative error
	Method       FitMethod     // the options it ran with, defaults filled in (the window among them), as fitted (Fit overrides Relative and Linear)
	Runs         []*RunResult  // the runs fitted (warm-up excluded), in that order
	// Traces name every run given with a trace, warm-up and slot resets
	// included, in order, each with its kind and the slots of an engine of
	// its own (RunResult.Slots): a refit from them (ReadCitedRun) replays
	// the slot cache as this fit did.
	Traces []TraceRef
	// Slots is the engine's fixed number of sequence slots, from the
	// concurrency ramp, or the most a run on this engine ran at once where
	// that is more (slotsRan); 0 when the ramp found no hard limit (a
	// paged engine, or a ramp that stayed under it) or the runs name a
	// paged engine (PagedBy): then the resident-token terms are off.
	Slots int
	// PagedBy says what in the runs' metadata named the engine a paged
	// one (see pagedEngine); "" when nothing did.
	PagedBy string
	// SlotsBy is the engine name that made Slots those of an engine of
	// slots (llama.cpp, Ollama); "" when Slots is the ramp's limit taken
	// by assumption (an engine unnamed or not known) or 0.
	SlotsBy string
	// Engine is the engine the runs name, for saying what was assumed.
	Engine  string
	Recover RecoverStats
	// DroppedLateFirst counts steps left out as late first tokens (see
	// lateFirsts).
	DroppedLateFirst int
	// Trimmed are the observations left out as artefacts (NoTrim).
	Trimmed []Observation
	// DroppedResumed counts recovered steps left out because RecoverSteps
	// read a request in them as resumed after preemption (see dropResumed).
	DroppedResumed int
	Fit            *Fit     // on every observation: the profile's coefficients
	HeldOut        *HeldOut // fit on the rest, error on whole held-out runs
	// HeldOutSteps is the same check on single, unaveraged steps (nil when
	// Window is 1 or the check failed), trimmed as HeldOut is (NoTrim):
	// its error includes the client's token delivery jitter.
	HeldOutSteps *HeldOut
	// HeldOutStepsErr is why the single-step check failed (nil when it
	// ran or Window is 1): Print says so rather than drop its line.
	HeldOutStepsErr error
	// Residuals are (predicted − observed)/observed of Fit over all
	// observations, by run kind and (prefill, decode) by repeat: the
	// spread of the model's error.
	Residuals []ResidualSpread
	// ByRun is each fitted run's median resident tokens and residual: a
	// run the model gets wrong stands out here (a cache layout the slot
	// model misses, or an engine that slowed down).
	ByRun []RunResidual
	// Concurrency is the memory probe's result; nil when the plan had no
	// memory runs.
	Concurrency *ConcurrencyProbe
	// Admission is the admission runs' measure of how long a request
	// arriving at a busy engine takes to reach its scheduler; nil without
	// admission runs or probes admitted while their carrier ran.
	Admission *Admission
	// Spread is each repeated configuration's key metrics across its
	// repeats.
	Spread []ConfigSpread
}

// ResidualSpread summarises relative residuals of one group of steps.
type ResidualSpread struct {
	Group                    string // run kind, or "all"
	N                        int
	P10, Median, P90, MedAbs float64 // fractions
}

// RunResidual is one run's share of the fit: the median resident tokens
// of its pure-decode observations (the cells they attend over with a slot
// cache; 0 without any) and the median relative residual of all of them.
type RunResidual struct {
	Run              string
	N                int
	Resident, Median float64
}

// ConfigSpread is one configuration's metrics over its repeats.
type ConfigSpread struct {
	Config                     string
	Repeats                    int
	TTFTMin, TTFTMean, TTFTMax float64 // mean TTFT of each repeat, seconds
	TPOTMin, TPOTMean, TPOTMax float64 // mean TPOT of each repeat, seconds
}

// Analyze recovers the engine steps of every non-warm-up run
// (RecoverRuns), fits the step-time model to all of them (FitSteps),
// cross-checks it on whole held-out runs (CrossCheck), and reads the
// concurrency limit off the memory runs (ProbeConcurrency). Failed
// requests are left out (their rows carry no token times).
func Analyze(runs []*RunResult, opt AnalyzeOptions) (*Analysis, error) {
	k := opt.HeldOutK
	if k == 0 {
		k = 4
	}
	win := opt.Window
	if win == 0 {
		win = 8
	}
	// The fit settings are recorded once they are chosen (opt.Fit may
	// override them): see recordFit.
	a := &Analysis{Method: FitMethod{Window: win, NoTrim: opt.NoTrim, HeldOutFolds: k}}
	for _, r := range runs {
		if r.Spec.Kind != KindWarmup && r.Spec.Kind != KindReset {
			a.Runs = append(a.Runs, r)
		}
		if r.Trace != nil {
			ref := *r.Trace
			ref.Kind, ref.Slots = r.Spec.Kind, r.Slots
			a.Traces = append(a.Traces, ref)
		}
	}
	if len(a.Runs) == 0 {
		return nil, errors.New("calibrate: analyze: no measured runs")
	}
	// Engines with a fixed number of sequence slots (llama.cpp, Ollama),
	// which the concurrency ramp finds as a hard limit, keep finished
	// requests' tokens in idle slots, in one cache whose layout sets what
	// each step attends over; the engine is taken as freshly started. See
	// annotateResident. Others (paged engines) get no resident terms: a
	// paged engine's limit (vLLM's max_num_seqs) stops the ramp too, so
	// one the runs name as paged keeps its limit out of Slots. An engine
	// of slots has at least as many as any run ran at once: a ramp that
	// saturated below a decode run's peak did not find all of them.
	resets := 0
	var cache *sim.SlotCache
	a.Concurrency = ProbeConcurrency(a.Runs)
	a.PagedBy = pagedEngine(runs)
	if c := a.Concurrency; c != nil && c.Saturated && c.MaxSeqs > 0 && a.PagedBy == "" {
		most, _ := a.slotsRan()
		a.Slots = max(c.MaxSeqs, most)
		a.SlotsBy, a.Engine = slotEngineName(runs), unknownEngine(runs)
		cache = newSlotCache(a.Slots)
	}
	for _, r := range runs {
		resets = max(resets, r.Spec.Concurrency) // RunPlan's slot-reset requests
	}
	resetTol := resetTolerance(runs)
	var admitNext, admitLock, slotWaits []float64
	var err error
	i := 0 // index into a.Runs
	for k, r := range runs {
		runCache := cache
		if r.Slots > 0 && cache != nil {
			runCache = newSlotCache(r.Slots)
		}
		// Each reset and each run has prompts of its own salt. Traces
		// written before resets were recorded get the reset's intended
		// outcome.
		recorded := k > 0 && runs[k-1].Spec.Kind == KindReset
		if runCache != nil && r.SlotReset > 0 && !recorded {
			resetCache(runCache, resets, int(r.SlotReset-1), runPrompts{key: uint64(2*k + 1), shared: r.Shared})
		}
		prompts := runPrompts{key: uint64(2*k + 2), shared: r.Shared, salt: r.Salt, text: r.Text, block: r.Meta.BlockSize}
		if r.Spec.Kind == KindWarmup || r.Spec.Kind == KindReset {
			// Not measured, but what it leaves in the cache is where later
			// runs start.
			if runCache != nil {
				tol := liveTolerance(r.Rows)
				if tol == 0 {
					tol = resetTol
				}
				annotateResident(nil, r.Rows, runCache, tol, prompts)
			}
			continue
		}
		rs := opt.Recover
		if rs == nil {
			rs = &RecoverSettings{Tolerance: liveTolerance(r.Rows)}
		}
		n := len(a.Steps)
		var st RecoverStats
		a.Steps, st, err = RecoverSteps(a.Steps, r.Rows, rs)
		if err != nil {
			return nil, fmt.Errorf("calibrate: analyze: run %s: %w", r.Spec.Name, err)
		}
		annotateResident(a.Steps[n:], r.Rows, runCache, st.Tolerance, prompts)
		if r.Spec.Kind == KindAdmission {
			next, lock := admissionDelays(r.Rows, st.Tolerance)
			admitNext, admitLock = append(admitNext, next...), append(admitLock, lock...)
		}
		if slots := cmp.Or(r.Slots, a.Slots); slots > 0 && cache != nil {
			slotWaits = append(slotWaits, slotSteps(r.Rows, st.Tolerance, slots)...)
		}
		kept := dropResumed(a.Steps[n:], r.Rows, st.Tolerance)
		a.DroppedResumed += len(a.Steps) - n - len(kept)
		a.Steps = a.Steps[:n+len(kept)]
		for j := n; j < len(a.Steps); j++ {
			a.Steps[j].Run = i
		}
		a.Recover.addCounts(st)
		a.Recover.Tolerance = max(a.Recover.Tolerance, st.Tolerance)
		i++
	}
	if len(a.Steps) == 0 && a.Recover.Chunked > 0 {
		// Token gaps are steps only when each chunk carries one token.
		return nil, fmt.Errorf("calibrate: analyze: no engine step recovered: %d of %d requests streamed chunks that were not one token each (several tokens per chunk, or usage counting fewer tokens than chunks), so their token times mark no step",
			a.Recover.Chunked, a.Recover.Requests)
	}
	if len(a.Steps) == 0 {
		// Failed requests carry no token times: a fit with nothing to fit
		// says why, not only that it had no observations.
		sent, failed, kinds := 0, 0, map[string]int{}
		for _, r := range a.Runs {
			s := Summarize(r.Rows)
			sent, failed = sent+s.Sent, failed+s.Failed
			for k, n := range s.FailedByKind {
				kinds[k] += n
			}
		}
		if sent > 0 && failed == sent {
			return nil, fmt.Errorf("calibrate: analyze: nothing to fit: %d of %d measured requests failed (%v)", failed, sent, kinds)
		}
	}
	a.Admission = summarizeAdmission(admitNext, admitLock, slotWaits)
	// Late first tokens are dropped after the steps are marked and
	// windowed (neither changes for it: markAfterPrefill counts dropped
	// boundaries, and no window holds a prefill step), so that the
	// held-out check can decide them by each fold's training part.
	markAfterPrefill(a.Steps)
	all, allCounts := WindowSteps(nil, nil, a.Steps, win)
	steps := a.Steps
	rate := lateFirstRate(all)
	late := lateFirsts(all, rate)
	a.Observations, a.StepCounts = keep(all, late), keep(allCounts, late)
	a.Steps = keep(steps, lateFirsts(steps, rate))
	a.DroppedLateFirst = len(all) - len(a.Observations)
	// An engine with one cache for all slots attends over every cell in
	// use, so the resident terms replace the per-sequence attention terms:
	// with both, the fit can trade one for the other (ca and ck against
	// crp and cr) and interpolates prompt lengths outside the plan badly.
	fs := FitSettings{Curve: !opt.Linear, Relative: opt.Relative, Collinearity: opt.Collinearity, Confidence: opt.Confidence}
	fs.Off[TermPrefillResident] = cache == nil
	fs.Off[TermDecodeResident] = cache == nil
	fs.Off[TermResident] = cache == nil
	fs.Off[TermPrefillAttn] = cache != nil
	fs.Off[TermDecodeContext] = cache != nil
	chosen := fs.Off
	for t, on := range opt.With {
		fs.Off[t] = fs.Off[t] && !on
	}
	if opt.Fit != nil {
		fs = *opt.Fit
	}
	for t, off := range opt.Without {
		fs.Off[t] = fs.Off[t] || off
	}
	a.recordFit(fs, chosen, opt.Without)
	// Weights are per observation of all, late first tokens included.
	// A window, the mean of k steps, weighs k: every step counts once,
	// in absolute error and, over its predicted time squared, in relative
	// error (FitSettings.Relative).
	if fs.Weights == nil {
		fs.Weights = slices.Clone(allCounts)
	}
	a.Relative = fs.Relative
	// The held-out check sees every observation: dropping late first
	// tokens and trimming are part of the fit, so each fold decides them
	// by its own training part, and no fit that saw a held-out run
	// decides what is fitted or predicted.
	fitted := a.Observations
	main := fs
	main.Weights = keep(fs.Weights, late)
	var kept []int
	if a.Fit, kept, err = fitTrimmed(fitted, &main, !opt.NoTrim); err != nil {
		return nil, err
	}
	if a.HeldOut, err = crossCheck(all, k, &fs, !opt.NoTrim, true); err != nil {
		return nil, err
	}
	if len(kept) < len(fitted) {
		in := make([]bool, len(fitted))
		for _, i := range kept {
			in[i] = true
		}
		var counts []float64
		a.Observations = nil
		for i, o := range fitted {
			if in[i] {
				a.Observations, counts = append(a.Observations, o), append(counts, a.StepCounts[i])
			} else {
				a.Trimmed = append(a.Trimmed, o)
			}
		}
		a.StepCounts = counts
	}
	// The same check on single steps, for the record.
	if win > 1 {
		fs1 := FitSettings{Off: fs.Off, Curve: fs.Curve, Collinearity: fs.Collinearity, Confidence: fs.Confidence, Relative: fs.Relative}
		// A failure here leaves the profile's figures, from HeldOut, whole.
		a.HeldOutSteps, a.HeldOutStepsErr = crossCheck(steps, k, &fs1, !opt.NoTrim, true)
	}
	md := a.HeldOut.MdAPE
	a.Fit.Quality.HeldOutMdAPE = &md
	a.Fit.Quality.NHeldOut = a.HeldOut.NHeld
	pred := a.Fit.Step.Predict(nil, a.Observations)
	a.Residuals = residualSpread(pred, a.Observations, a.Runs)
	a.ByRun = runResiduals(pred, a.Observations, a.Runs)
	a.Spread = configSpread(a.Runs)
	return a, nil
}

// recordFit records in a.Method how fs, the settings fitted, fit: besides
// the terms without marks, those fs holds at 0 that Analyze's own choice
// (chosen) fits are recorded as held, so that a refit from the method,
// which makes that choice again, holds them too.
func (a *Analysis) recordFit(fs FitSettings, chosen, without [NumTerms]bool) {
	m := &a.Method
	m.Relative, m.Linear = fs.Relative, !fs.Curve
	m.Without, m.With = []string{}, nil
	for t := range Term(NumTerms) {
		switch {
		case without[t] || fs.Off[t] && !chosen[t]:
			m.Without = append(m.Without, t.String())
		case !fs.Off[t] && chosen[t]:
			m.With = append(m.With, t.String())
		}
	}
	m.Collinearity = cmp.Or(fs.Collinearity, DefaultCollinearity)
	m.Confidence = cmp.Or(fs.Confidence, DefaultConfidence)
	m.Weights = WeightsSteps
	if fs.Weights != nil {
		m.Weights = WeightsGiven
	}
}

// fitTrimmed fits obs (FitSteps with settings, whose Weights, if any,
// are per observation of obs). With trim it then keeps the observations
// the fit misses by at most 100% and refits, then those the refit misses
// by at most 50% and refits (AnalyzeOptions.NoTrim). A miss is relative
// to the smaller of the observed and predicted times, so that a stall is
// missed as much as a step as much faster; and each pass chooses among
// all of obs, so that steps a stall pulled the first fit away from come
// back once it is gone. It returns the last fit and the indices into obs
// of the observations it was fitted to, ascending.
//
// With settings.Relative, the fits that decide what is trimmed weigh
// each observation by its observed time, and only the last, on what is
// kept, is iterated to weights by the predicted time (fitRelative): a
// weight by the prediction gives a stall ten times its step the full say
// of a step, pulling the fit toward the very observations trimming is to
// find, where one by the observed time shrinks it a hundredfold. The few
// percent those fits run low moves no miss across 50% or 100% but those
// already at the edge.
func fitTrimmed(obs []Observation, settings *FitSettings, trim bool) (*Fit, []int, error) {
	fs := *settings
	idx := make([]int, len(obs))
	for i := range idx {
		idx[i] = i
	}
	if !trim {
		f, err := FitSteps(obs, &fs)
		return f, idx, err
	}
	ts := fs // the settings of the fits that decide the trimming
	if fs.Relative {
		ts.Relative, ts.Weights = false, observedWeights(obs, fs.Weights)
	}
	f, err := FitSteps(obs, &ts)
	if err != nil {
		return f, idx, err
	}
	for pass, lim := range []float64{1, 0.5} {
		pred := f.Step.Predict(nil, obs)
		var kept []Observation
		var ki []int
		for i, o := range obs {
			if math.Abs(pred[i]-o.Seconds) <= lim*math.Min(pred[i], o.Seconds) {
				kept, ki = append(kept, o), append(ki, i)
			}
		}
		if len(kept) == 0 {
			// FitSteps would say only "no observations".
			return nil, nil, fmt.Errorf("calibrate: fit steps: trim removed all %d observations: each missed the fit by more than %g%% of the smaller of its observed and predicted time (--no-trim keeps them)", len(obs), 100*lim)
		}
		next := ts
		if pass == 1 {
			next = fs
		}
		next.Weights, idx = pick(next.Weights, ki), ki
		if f, err = FitSteps(kept, &next); err != nil {
			return nil, nil, err
		}
	}
	return f, idx, nil
}

// pick returns v's elements at idx, in a new slice (nil for a nil v).
func pick[T any](v []T, idx []int) []T {
	if v == nil {
		return nil
	}
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = v[i]
	}
	return out
}

// dropResumed filters obs (one run's steps, in place) to those whose
// prefill is exactly the prompts of the requests whose first token closes
// them. A step with more prefill holds a request that RecoverSteps read as
// resumed after a preemption: on a live client that is almost always a
// boundary split by delivery jitter (a request's token reached the client
// after the tolerance), and the recompute charged for it (prompt +
// generated tokens) would be a phantom prefill of thousands of tokens in
// a 10 ms step. Calibration runs stay within the engine's memory, where
// engines do not preempt.
func dropResumed(obs []Observation, rows []*traces.Request, tol int64) []Observation {
	type first struct {
		t int64
		n float64
	}
	var fs []first
	for _, r := range rows {
		if len(r.TokenTimes) == 0 {
			continue
		}
		p := float64(promptOf(r))
		if r.UsageCached > 0 {
			p -= min(float64(r.UsageCached), p)
		}
		fs = append(fs, first{r.TokenTimes[0], p})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].t < fs[j].t })
	out := obs[:0]
	for _, o := range obs {
		want := 0.0
		for j := sort.Search(len(fs), func(j int) bool { return fs[j].t >= o.End }); j < len(fs) && fs[j].t <= o.End+tol; j++ {
			want += fs[j].n
		}
		if o.PrefillTokens <= want+0.5 {
			out = append(out, o)
		}
	}
	return out
}

// lateFirstRate is the fastest per-token prefill rate, seconds per token,
// of the from-idle steps of obs; +Inf without any.
func lateFirstRate(obs []Observation) float64 {
	rate := math.Inf(1)
	for _, o := range obs {
		if o.FromIdle && o.PrefillTokens > 0 {
			rate = math.Min(rate, o.Seconds/o.PrefillTokens)
		}
	}
	return rate
}

// lateFirsts marks the late first tokens of obs: steps whose prefill is
// implausibly fast, not from idle and taking less than half of what rate
// (lateFirstRate: the fastest per-token prefill of from-idle steps, single
// requests where nothing else competes) allows for their prefill tokens.
// Such a step is a first token the server delivered late — after the step
// that computed it, in a cluster of its own a few ms after the others'
// tokens — so RecoverSteps charges a whole prompt to a 10 ms gap. Without
// from-idle prefill steps (rate +Inf) none is marked.
func lateFirsts(obs []Observation, rate float64) []bool {
	late := make([]bool, len(obs))
	for i, o := range obs {
		late[i] = !o.FromIdle && o.PrefillTokens > 0 && o.Seconds < 0.5*rate*o.PrefillTokens
	}
	return late
}

// keep returns the elements of v that drop does not mark, in a new slice
// (nil for a nil v).
func keep[T any](v []T, drop []bool) []T {
	if v == nil {
		return nil
	}
	out := make([]T, 0, len(v))
	for i, x := range v {
		if !drop[i] {
			out = append(out, x)
		}
	}
	return out
}

// residualSpread groups the relative residuals of the predictions pred of
// obs: all, by run kind, by kind and repeat for the repeated kinds, and
// the steps from idle.
func residualSpread(pred []float64, obs []Observation, runs []*RunResult) []ResidualSpread {
	groups := map[string][]float64{}
	var order []string
	add := func(g string, v float64) {
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], v)
	}
	for i, o := range obs {
		if o.Seconds <= 0 {
			continue
		}
		r := (pred[i] - o.Seconds) / o.Seconds
		spec := runs[o.Run].Spec
		add("all", r)
		add(spec.Kind, r)
		if spec.Kind == KindPrefill || spec.Kind == KindDecode {
			// By repeat too: a bias that flips between repeats is
			// engine state the model misses, not noise.
			add(fmt.Sprintf("%s r%d", spec.Kind, spec.Repeat), r)
		}
		if o.FromIdle {
			add("from idle", r)
		}
	}
	if len(order) > 1 {
		slices.Sort(order[1:]) // "all" first
	}
	var out []ResidualSpread
	for _, g := range order {
		v := groups[g]
		sort.Float64s(v)
		abs := make([]float64, len(v))
		for i, x := range v {
			abs[i] = math.Abs(x)
		}
		// The median as everywhere else (MdAPE, ByRun): for an even count
		// the mean of the middle two, not the nearest rank's lower one.
		out = append(out, ResidualSpread{Group: g, N: len(v), P10: pct(v, 0.1), Median: median(v), P90: pct(v, 0.9), MedAbs: median(abs)})
	}
	return out
}

// runResiduals is the RunResidual of every run with observations, in run
// order, from the predictions pred of obs.
func runResiduals(pred []float64, obs []Observation, runs []*RunResult) []RunResidual {
	res := make([][]float64, len(runs))
	rel := make([][]float64, len(runs))
	for i, o := range obs {
		if o.Seconds <= 0 {
			continue
		}
		if o.PrefillTokens == 0 && o.DecodeSeqs > 0 {
			res[o.Run] = append(res[o.Run], o.DecodeResident/o.DecodeSeqs)
		}
		rel[o.Run] = append(rel[o.Run], (pred[i]-o.Seconds)/o.Seconds)
	}
	var out []RunResidual
	for i, r := range runs {
		if len(rel[i]) > 0 {
			out = append(out, RunResidual{Run: r.Spec.Name, N: len(rel[i]), Resident: median(res[i]), Median: median(rel[i])})
		}
	}
	return out
}

// pct is the nearest-rank quantile of sorted v.
func pct(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func configSpread(runs []*RunResult) []ConfigSpread {
	idx := map[string]int{}
	var out []ConfigSpread
	for _, r := range runs {
		if r.Summary == nil || r.Summary.Succeeded == 0 {
			continue
		}
		cfg := r.Spec.Config()
		i, ok := idx[cfg]
		if !ok {
			i = len(out)
			idx[cfg] = i
			out = append(out, ConfigSpread{Config: cfg, TTFTMin: math.Inf(1), TPOTMin: math.Inf(1), TTFTMax: math.Inf(-1), TPOTMax: math.Inf(-1)})
		}
		s := &out[i]
		tt, tp := r.Summary.TTFT.Mean.Seconds(), r.Summary.TPOT.Mean.Seconds()
		s.Repeats++
		s.TTFTMin, s.TTFTMax, s.TTFTMean = math.Min(s.TTFTMin, tt), math.Max(s.TTFTMax, tt), s.TTFTMean+tt
		s.TPOTMin, s.TPOTMax, s.TPOTMean = math.Min(s.TPOTMin, tp), math.Max(s.TPOTMax, tp), s.TPOTMean+tp
	}
	var rep []ConfigSpread
	for _, s := range out {
		s.TTFTMean /= float64(s.Repeats)
		s.TPOTMean /= float64(s.Repeats)
		if s.Repeats > 1 {
			rep = append(rep, s)
		}
	}
	return rep
}

// ProbePoint is one step of the concurrency ramp.
type ProbePoint struct {
	Clients         int
	OutputTokPerSec float64
	MeanTTFT        float64 // seconds
	// PeakRunning is the most requests that were generating at once:
	// the maximum overlap of their [first token, last token] spans.
	PeakRunning int
	// PeakTokens is the most KV tokens those requests held at once:
	// Σ (prompt + tokens generated so far) over the requests generating.
	PeakTokens int64
	// Failed is the point's failed requests: a point with any ran fewer
	// sequences than clients for that reason too, so it does not show a
	// limit (Saturated).
	Failed int
	// Stopped is the point's requests that stopped at EOS before their
	// max_tokens (RunResult.EarlyStops): they ended early, so a point with
	// any may have had fewer generating than clients without a limit.
	Stopped int
}

// ConcurrencyProbe is the measured concurrency limit of the engine.
type ConcurrencyProbe struct {
	Points []ProbePoint
	// MaxSeqs is the most sequences the engine ran at once (the largest
	// PeakRunning). Saturated says whether the ramp found the limit: some
	// point without failed or early-stopped requests had more clients than
	// the engine ran (added clients waited); otherwise MaxSeqs is only a
	// lower bound.
	MaxSeqs   int
	Saturated bool
	// Knee is the first ramp point past which more clients stop raising
	// throughput (< 10% more) and start waiting (mean TTFT +50% or more);
	// 0 when no such point was seen, or the point past it had every
	// client generating at once (no slot ran out, so Knee > 0 implies
	// Saturated). Points with failed or early-stopped requests are left
	// out of it: they generated fewer tokens than their clients asked
	// for, so their throughput is no evidence of a limit.
	Knee int
	// MaxTokens is the most KV tokens the engine held at once in the
	// probe (PeakTokens' maximum, from the prompt and output lengths). It
	// is measured, and a lower bound on the KV capacity: when Saturated,
	// the engine ran out of sequence slots, not necessarily of memory.
	MaxTokens int64
}

// ProbeConcurrency reads the engine's concurrency limit off the memory
// runs (KindMemory) of runs: for each ramp point, output throughput, mean
// TTFT and the peak number of requests generating at once. It returns nil
// when there are no memory runs.
func ProbeConcurrency(runs []*RunResult) *ConcurrencyProbe {
	var p ConcurrencyProbe
	for _, r := range runs {
		if r.Spec.Kind != KindMemory || r.Summary == nil {
			continue
		}
		pt := ProbePoint{Clients: r.Spec.Concurrency, OutputTokPerSec: r.Summary.OutputTokensPerSec, MeanTTFT: r.Summary.TTFT.Mean.Seconds(),
			Failed: r.Summary.Failed}
		pt.Stopped, _ = r.EarlyStops()
		pt.PeakRunning, pt.PeakTokens = peakRunning(r.Rows)
		p.Points = append(p.Points, pt)
	}
	if len(p.Points) == 0 {
		return nil
	}
	sort.SliceStable(p.Points, func(i, j int) bool { return p.Points[i].Clients < p.Points[j].Clients })
	// A point with failed requests lost their tokens and TTFTs, and one
	// with early-stopped outputs generated fewer than it asked for: the
	// knee compares each point with neither with the one before it.
	// This knee is not the sweep's (sweep.Knee, --knee-*-pct), a trade of
	// throughput against tail latency on an open-loop load curve: it marks
	// where a closed-loop ramp runs out of engine slots, past which an
	// added client waits for a whole request to end, so mean TTFT jumps
	// by far more than 50% while throughput stays flat. Fixed thresholds
	// fit that jump on any ramp step (2× down to one added client): below
	// the limit a step adds no wait, only batch interference, far short
	// of half. The point past the knee must have had a client wait (fewer
	// generating than its clients): one whose clients all generated at
	// once ran out of no slot, whatever its throughput and TTFT did.
	var prev *ProbePoint
	for i, pt := range p.Points {
		p.MaxSeqs = max(p.MaxSeqs, pt.PeakRunning)
		p.MaxTokens = max(p.MaxTokens, pt.PeakTokens)
		if pt.PeakRunning < pt.Clients && pt.Failed == 0 && pt.Stopped == 0 {
			p.Saturated = true
		}
		if pt.Failed > 0 || pt.Stopped > 0 {
			continue
		}
		waited := pt.PeakRunning < pt.Clients
		if prev != nil && p.Knee == 0 && waited && pt.OutputTokPerSec < 1.1*prev.OutputTokPerSec && pt.MeanTTFT > 1.5*prev.MeanTTFT {
			p.Knee = prev.Clients
		}
		prev = &p.Points[i]
	}
	return &p
}

// leftOut counts the ramp points the knee does not read: those with
// failed or early-stopped requests.
func (c *ConcurrencyProbe) leftOut() int {
	n := 0
	for _, pt := range c.Points {
		if pt.Failed > 0 || pt.Stopped > 0 {
			n++
		}
	}
	return n
}

// seqsBound says what seqs, the most the calibrated engine ran at once
// (engineSeqs), is: the ramp's
// limit only where the ramp saturated and nothing ran more; a run above
// the ramp's peak shows that peak was no limit of sequences, and is
// itself only a lower bound.
func (c *ConcurrencyProbe) seqsBound(seqs int) string {
	switch {
	case seqs <= c.MaxSeqs && c.Saturated:
		return "measured limit"
	case seqs <= c.MaxSeqs:
		return "lower bound: the ramp never exceeded the engine's limit"
	case c.MaxSeqs == 0:
		return "lower bound: no ramp request generated a token"
	case c.Saturated:
		return fmt.Sprintf("lower bound: the ramp saturated at %d (its added clients waited), yet %d ran at once", c.MaxSeqs, seqs)
	default:
		return fmt.Sprintf("lower bound: the ramp's %d never exceeded the engine's limit", c.MaxSeqs)
	}
}

// peakRunning is the maximum overlap of the requests' [FirstToken,
// LastToken] spans (a request ending when another starts does not
// overlap it), and the most tokens they held at once: one sweep over
// the sorted starts, token arrivals and ends.
func peakRunning(rows []*traces.Request) (int, int64) {
	var evs []heldEvent
	var peakTok int64
	for _, r := range rows {
		if !r.Succeeded() || r.FirstToken == traces.Missing || r.Warmup {
			continue
		}
		evs = appendHeldEvents(evs, r)
		// Every request also holds prompt + output tokens at its end.
		peakTok = max(peakTok, int64(promptOf(r))+int64(max(r.UsageOutput, 0)))
	}
	slices.SortFunc(evs, func(a, b heldEvent) int { return cmp.Compare(a.t, b.t) })
	n, peak := 0, 0
	var tok int64
	for i := 0; i < len(evs); {
		t := evs[i].t
		j := i
		for j < len(evs) && evs[j].t == t {
			j++
		}
		at := evs[i:j]
		// Starts and tokens first: the requests ending at t still hold
		// theirs, the most Σ tokens reaches before falling at an end.
		starts, ends, leaving := 0, 0, 0
		for _, e := range at {
			switch e.kind {
			case heldStart:
				n++
				starts++
				tok += e.tokens
			case heldToken:
				tok += e.tokens
			case heldEnd:
				ends++
				if e.r.FirstToken < t {
					leaving++
				}
			}
		}
		if starts > 0 || ends > 0 {
			peakTok = max(peakTok, tok)
		}
		if starts > 0 {
			// Those that started before t and end at t do not overlap
			// those starting at t.
			peak = max(peak, n-leaving)
		}
		for _, e := range at {
			if e.kind == heldEnd {
				n--
				tok -= e.tokens
			}
		}
		i = j
	}
	return peak, peakTok
}

// heldEvent is a change, at t, of the requests generating and the tokens
// they hold.
type heldEvent struct {
	t      int64
	kind   heldKind
	tokens int64 // held from a start, added by a token, released at an end
	r      *traces.Request
}

type heldKind uint8

const (
	heldStart heldKind = iota
	heldToken
	heldEnd
)

// appendHeldEvents appends r's start (its prompt and the tokens it had by
// FirstToken), each later token up to its end (tokensBy), and its end.
func appendHeldEvents(evs []heldEvent, r *traces.Request) []heldEvent {
	held := func(t int64) int64 { return int64(promptOf(r)) + int64(tokensBy(r, t)) }
	evs = append(evs, heldEvent{t: r.FirstToken, kind: heldStart, tokens: held(r.FirstToken), r: r})
	if len(r.TokenTimes) > 0 {
		for _, tt := range r.TokenTimes {
			if tt > r.FirstToken && tt <= r.LastToken {
				evs = append(evs, heldEvent{t: tt, kind: heldToken, tokens: 1, r: r})
			}
		}
	} else if r.LastToken > r.FirstToken {
		evs = append(evs, heldEvent{t: r.LastToken, kind: heldToken, tokens: held(r.LastToken) - held(r.FirstToken), r: r})
	}
	return append(evs, heldEvent{t: r.LastToken, kind: heldEnd, tokens: held(r.LastToken), r: r})
}

// mostRunning is the most requests one measured run of runs had
// generating at once (peakRunning), and the name of the first run that
// had them.
func mostRunning(runs []*RunResult) (int, string) {
	most, name := 0, ""
	for _, run := range runs {
		if n, _ := peakRunning(run.Rows); n > most {
			most, name = n, run.Spec.Name
		}
	}
	return most, name
}

// slotsRan is the most requests one fitted run on the calibrated engine
// had generating at once, and the name of the first run that had them: a
// run on an engine of its own (Slots > 0) ran another engine's slots.
func (a *Analysis) slotsRan() (int, string) { return mostRunning(a.engineRuns()) }

// engineRuns are the fitted runs on the calibrated engine: a run on an
// engine of its own (Slots > 0) ran another engine's slots.
func (a *Analysis) engineRuns() []*RunResult {
	return slices.DeleteFunc(slices.Clone(a.Runs), func(r *RunResult) bool { return r.Slots > 0 })
}

// slotsSource says where Slots came from: the ramp's limit, or the run
// that ran more sequences at once than the ramp's peak.
func (a *Analysis) slotsSource() string {
	c := a.Concurrency
	if c == nil || a.Slots <= c.MaxSeqs {
		return "the ramp's limit"
	}
	_, run := a.slotsRan()
	return fmt.Sprintf("ran at once in run %s, above the ramp's %d", run, c.MaxSeqs)
}

// MostRunning is the most requests one fitted run had generating at
// once, and the name of the first run that had them: what a profile's
// max_seqs counts beside the ramp.
func (a *Analysis) MostRunning() (int, string) { return mostRunning(a.Runs) }

// engineSeqs is the most sequences the calibrated engine ran at once
// and where ("the ramp" or "run NAME"): the ramp's, or a run on that
// engine above it (slotsRan, the rule Slots follows). A run on an engine
// of its own (a verification run) shows nothing of this engine's limit.
// 0 without memory runs.
func (a *Analysis) engineSeqs() (int, string) { return a.rampOrRun(a.engineRuns()) }

// maxSeqs is the profile's max_seqs and where it ran ("the ramp" or
// "run NAME"): a ramp capped below the decode runs' clients ran fewer
// at once than the fit measured. Every fitted run counts, verification
// runs on an engine of their own too: their steps were fitted, so the
// decode terms were measured at their batches, though they say nothing
// of the calibrated engine's limit (engineSeqs). 0 without memory runs.
func (a *Analysis) maxSeqs() (int, string) { return a.rampOrRun(a.Runs) }

// rampOrRun is the most sequences the ramp or one of runs ran at once
// (mostRunning), and where ("the ramp" or "run NAME"); 0 without memory
// runs.
func (a *Analysis) rampOrRun(runs []*RunResult) (int, string) {
	c := a.Concurrency
	if c == nil {
		return 0, ""
	}
	most, run := mostRunning(runs)
	if c.MaxSeqs >= most {
		return c.MaxSeqs, "the ramp"
	}
	return most, "run " + run
}

// mostHeld is the most KV tokens one run of runs held at once
// (peakRunning), of the runs on the calibrated engine, and the name of the
// first run that held them: one with an engine of its own (Slots > 0)
// measured another.
func mostHeld(runs []*RunResult) (int64, string) {
	var most int64
	var name string
	for _, run := range runs {
		if run.Slots > 0 {
			continue
		}
		if _, tok := peakRunning(run.Rows); tok > most {
			most, name = tok, run.Spec.Name
		}
	}
	return most, name
}

// heldKV is the profile's kv.max_concurrent_tokens, a lower bound on the
// KV capacity, and where it was held ("run NAME"): what any run held on this
// engine counts, and long-prompt decode runs may hold more than the ramp
// (or some where every ramp request failed). 0 without memory runs, or
// when no run held any.
func (a *Analysis) heldKV() (int64, string) {
	c := a.Concurrency
	if c == nil {
		return 0, ""
	}
	held, run := mostHeld(a.Runs)
	if c.MaxTokens > held {
		return c.MaxTokens, "the ramp"
	}
	return held, "run " + run
}

// longestContext is the most tokens (prompt + output) one measured request
// of runs held: the longest context the fit's steps saw.
func longestContext(runs []*RunResult) int64 {
	var longest int64
	for _, run := range runs {
		for _, r := range run.Rows {
			if r.Succeeded() && !r.Warmup {
				longest = max(longest, int64(promptOf(r))+int64(max(r.UsageOutput, 0)))
			}
		}
	}
	return longest
}

func promptOf(r *traces.Request) int32 {
	if r.UsagePrompt != traces.Missing {
		return r.UsagePrompt
	}
	return r.PromptTokens
}

// tokensBy is the number of output tokens r had received by t.
func tokensBy(r *traces.Request, t int64) int {
	if len(r.TokenTimes) > 0 {
		return sort.Search(len(r.TokenTimes), func(i int) bool { return r.TokenTimes[i] > t })
	}
	if t >= r.LastToken {
		return int(max(r.UsageOutput, 0))
	}
	return 1
}

// EngineInfo describes what was calibrated, for the profile.
type EngineInfo struct {
	Engine, EngineVersion string
	EngineArgs            []string
	Model                 string
	Precision             string // model.Precision name, "" = unknown
	Device                string
	TensorParallel        int
	BlockSize             int         // KV block size in tokens, 0 = unknown
	ReportedKV            *ReportedKV // the capacity the engine reported, nil = none
}

// Profile builds the calibrated profile: the coefficients fitted on
// every run, their quality (with the held-out error), the measured KV
// capacity (the most tokens the memory probe, or any run on this
// engine, held at once: a lower bound; nil without memory runs), the traces, and power when given (nil: not measured).
// The engine's reported block size, when it reports one, replaces
// info.BlockSize.
func (a *Analysis) Profile(info EngineInfo, power *PowerFit, now time.Time) *Profile {
	// The block size the engine reports is the one it ran with; a told
	// one that differs is a mistake the profile would refuse.
	if r := info.ReportedKV; r != nil && r.BlockSize > 0 {
		info.BlockSize = r.BlockSize
	}
	p := &Profile{
		Version: ProfileVersion, Engine: info.Engine, EngineVersion: info.EngineVersion,
		EngineArgs: slices.Clone(info.EngineArgs), Model: info.Model, Precision: info.Precision,
		Device: info.Device, TensorParallel: info.TensorParallel, BlockSize: info.BlockSize,
		Step: a.Fit.Step, Quality: a.Fit.Quality, Power: power, Admission: a.Admission, CreatedAt: now.UTC(),
	}
	if p.EngineArgs == nil {
		p.EngineArgs = []string{}
	}
	p.MaxSeqs, _ = a.maxSeqs()
	p.MaxContext = longestContext(a.Runs)
	if held, _ := a.heldKV(); held > 0 {
		p.KV = &KVCapacity{MaxConcurrentTokens: held}
		if info.BlockSize > 0 {
			p.KV.Blocks = (held + int64(info.BlockSize) - 1) / int64(info.BlockSize)
		}
	}
	if info.ReportedKV != nil {
		r := *info.ReportedKV
		p.KVReported = &r
	}
	p.Traces = slices.Clone(a.Traces)
	if p.Traces == nil {
		p.Traces = []TraceRef{}
	}
	p.Lineage = []LineageEntry{}
	m := a.Method
	m.Without, m.With = slices.Clone(m.Without), slices.Clone(m.With)
	p.Method = &m
	return p
}

// printSlots writes the slots of an engine of slots, and whether its name
// decided them or they are assumed: an engine calibrate does not know may
// page its KV cache (TGI behind a proxy), which --engine says. A refit
// names the traces' engine and refuses an --engine that contradicts it,
// so runs that name one take another only from a new live calibration.
func (a *Analysis) printSlots(w io.Writer) {
	const replayed = "steps attend over the cells of one KV cache, replayed from a fresh engine"
	paged := "--engine " + strings.Join(pagedEngines[:3], ", --engine ")
	source := a.slotsSource()
	switch {
	case a.SlotsBy != "":
		fmt.Fprintf(w, "engine slots: %d (%s; engine %q): %s\n", a.Slots, source, a.SlotsBy, replayed)
	case a.Engine != "":
		fmt.Fprintf(w, "engine slots: %d (%s), assumed: engine %q is not one calibrate knows, taken as one of slots (llama.cpp's); %s\n",
			a.Slots, source, a.Engine, replayed)
		fmt.Fprintf(w, "  a paged engine's limit is its max_num_seqs: calibrating it live again with %s turns the resident-token terms off (a refit keeps the traces' engine)\n", paged)
	default:
		fmt.Fprintf(w, "engine slots: %d (%s), assumed: the runs name no engine, taken as one of slots (llama.cpp's); %s\n", a.Slots, source, replayed)
		fmt.Fprintf(w, "  a paged engine's limit is its max_num_seqs: %s, live or with --from-traces, turns the resident-token terms off\n", paged)
	}
}

// pagedLimit says what a paged engine's saturated ramp found: its own
// limit of sequences, unless a run ran more at once than the ramp's peak.
func (a *Analysis) pagedLimit() string {
	c := a.Concurrency
	seqs, where := a.engineSeqs()
	if seqs > c.MaxSeqs {
		return fmt.Sprintf("the ramp saturated at %d sequences, yet %d ran in %s: the engine's limit is at least %d", c.MaxSeqs, seqs, where, seqs)
	}
	return fmt.Sprintf("the ramp's limit of %d sequences is its own", c.MaxSeqs)
}

// Print writes the analysis for people: recovery counts, coefficients
// with intervals, R², residual spread, held-out error, repeat spread and
// the concurrency probe.
func (a *Analysis) Print(w io.Writer) {
	st := a.Recover
	fmt.Fprintf(w, "steps: %d recovered from %d requests (%d boundaries; dropped: %d coalesced, %d tainted, %d no start; %d from idle; %d steps with a request read as resumed; tolerance ≤ %.2f ms)\n",
		st.Steps-a.DroppedResumed, st.Requests, st.Clusters, st.Coalesced, st.Tainted, st.NoStart, st.FromIdle, a.DroppedResumed, float64(st.Tolerance)/1e6)
	if st.Skipped > 0 {
		// Failed requests have no token times; a stream whose chunks were
		// not one token each has times that mark no step.
		fmt.Fprintf(w, "  %d of them skipped (%d with chunks that were not one token each, %d without token times)\n", st.Skipped, st.Chunked, st.Skipped-st.Chunked)
	}
	if a.DroppedLateFirst > 0 {
		fmt.Fprintf(w, "dropped: %d steps with a first token delivered late (prefill faster than half the fastest single-request rate)\n", a.DroppedLateFirst)
	}
	if len(a.Trimmed) > 0 {
		fmt.Fprintf(w, "trimmed: %d of %d observations the fit missed by more than 50%% (measurement artefacts: late first tokens, stalls)\n",
			len(a.Trimmed), len(a.Trimmed)+len(a.Observations))
	}
	if a.Slots > 0 {
		a.printSlots(w)
	} else if c := a.Concurrency; a.PagedBy != "" && c != nil && c.Saturated {
		fmt.Fprintf(w, "engine slots: none, a paged KV cache (%s): resident-token terms off; %s\n", a.PagedBy, a.pagedLimit())
	} else {
		fmt.Fprintf(w, "engine slots: no hard limit found by the ramp: resident-token terms off (paged KV cache)\n")
	}
	f := a.Fit
	weighting := "absolute error"
	if a.Relative {
		weighting = "relative error"
	}
	fmt.Fprintf(w, "fit (%s): n=%d  R² %.4f  RMSE %.3f ms  MdAPE %.1f%%\n", weighting, f.Quality.N, f.Quality.R2, f.Quality.RMSE*1e3, 100*f.Quality.MdAPE)
	units := [TermDense0]struct {
		scale float64
		unit  string
	}{{1e3, "ms/step"}, {1e6, "µs/prefill token"}, {1e9, "ns/(prefill token × context)"}, {1e6, "µs/decode seq"}, {1e9, "ns/context token"},
		{1e9, "ns/(prefill token × resident token)"}, {1e9, "ns/(decode seq × resident token)"}, {1e9, "ns/resident token"},
		{1e3, "ms/step after a prompt"}}
	for t := range NumTerms {
		c := f.Step.At(Term(t))
		name, scale, unit := Term(t).String(), 1e3, "ms/step"
		if t < int(TermDense0) {
			scale, unit = units[t].scale, units[t].unit
		} else if c.Status == StatusOff || c.Status == StatusUnexcited {
			continue // a curve point no step reached, or the linear model
		}
		switch {
		case c.Status == StatusFit:
			fmt.Fprintf(w, "  %-10s %10.4f  [%.4f, %.4f] %s\n", name, c.Value*scale, c.Lo*scale, c.Hi*scale, unit)
		case c.Status == StatusBound && c.Hi > c.Lo:
			fmt.Fprintf(w, "  %-10s %10.4f  [%.4f, %.4f] (%s) %s\n", name, c.Value*scale, c.Lo*scale, c.Hi*scale, c.Status, unit)
		default:
			fmt.Fprintf(w, "  %-10s %10.4f  (%s) %s\n", name, c.Value*scale, c.Status, unit)
		}
	}
	for _, n := range f.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintf(w, "residuals (predicted − observed)/observed:\n")
	for _, r := range a.Residuals {
		fmt.Fprintf(w, "  %-10s n=%-5d p10 %+6.1f%%  median %+6.1f%%  p90 %+6.1f%%  median |err| %5.1f%%\n",
			r.Group, r.N, 100*r.P10, 100*r.Median, 100*r.P90, 100*r.MedAbs)
	}
	fmt.Fprintf(w, "by run (median resident tokens of decode steps, median residual):\n")
	for _, r := range a.ByRun {
		fmt.Fprintf(w, "  %-22s n=%-4d resident %6.0f  %+6.1f%%\n", r.Run, r.N, r.Resident, 100*r.Median)
	}
	h := a.HeldOut
	// One run is split by observation (SplitHeldOut), not by run.
	over := "whole runs"
	if !h.ByRun {
		over = "the observations of one run, not whole runs"
	}
	// With fewer runs than folds the empty ones fit nothing: say how
	// many were fitted.
	if h.Folds < h.K {
		over += fmt.Sprintf(", one per run: %d folds asked, %d runs", h.K, h.Folds)
		if !h.ByRun {
			over = fmt.Sprintf("the observations of one run, not whole runs: %d folds asked, %d observations", h.K, h.Folds)
		}
	}
	fmt.Fprintf(w, "held out (%d-fold cross-validation over %s): n=%d  median abs %% error %.1f%%  mean %.1f%%  (decode steps averaged in windows of ≤ %d)\n",
		h.Folds, over, h.NHeld, 100*h.MdAPE, 100*h.MAPE, a.Method.Window)
	if hs := a.HeldOutSteps; hs != nil {
		fmt.Fprintf(w, "held out, single steps (includes token delivery jitter): n=%d  median abs %% error %.1f%%  mean %.1f%%\n",
			hs.NHeld, 100*hs.MdAPE, 100*hs.MAPE)
	} else if a.HeldOutStepsErr != nil {
		fmt.Fprintf(w, "held out, single steps: not checked: %v\n", a.HeldOutStepsErr)
	}
	if len(a.Spread) > 0 {
		fmt.Fprintf(w, "spread over repeats (mean TTFT, mean TPOT: min / mean / max):\n")
		for _, s := range a.Spread {
			fmt.Fprintf(w, "  %-18s ×%d  TTFT %7.1f / %7.1f / %7.1f ms   TPOT %6.2f / %6.2f / %6.2f ms\n", s.Config, s.Repeats,
				s.TTFTMin*1e3, s.TTFTMean*1e3, s.TTFTMax*1e3, s.TPOTMin*1e3, s.TPOTMean*1e3, s.TPOTMax*1e3)
		}
	}
	if ad := a.Admission; ad != nil {
		fmt.Fprintf(w, "admission: a request arriving at a busy engine reaches its scheduler after %.1f ms (median of %d probes; 10th–90th percentile %.1f–%.1f ms)\n",
			ad.Delay*1e3, ad.N, ad.P10*1e3, ad.P90*1e3)
		if ad.NSlot > 0 {
			fmt.Fprintf(w, "slot hand-over: a request waiting for a sequence slot made its first token %g steps after the last token of the one that freed it (median of %d)\n",
				ad.SlotSteps, ad.NSlot)
		}
		if ad.Lock {
			fmt.Fprintf(w, "  so the engine takes requests in under its step loop's lock (Ollama's runner): a request reaches the loop after %.1f ms and waits there\n",
				ad.Latency*1e3)
		}
	}
	if c := a.Concurrency; c != nil {
		fmt.Fprintf(w, "concurrency probe (closed loop ramp):\n")
		for _, pt := range c.Points {
			failed := ""
			if pt.Failed > 0 {
				failed = fmt.Sprintf(" (%s failed: not a limit)", numfmt.Count(pt.Failed, "request"))
			} else if pt.Stopped > 0 {
				failed = fmt.Sprintf(" (%s ended before their max_tokens: not a limit)", numfmt.Count(pt.Stopped, "request"))
			}
			fmt.Fprintf(w, "  clients %3d: %7.1f output tok/s, mean TTFT %8.1f ms, peak generating %3d, peak KV tokens %6d%s\n",
				pt.Clients, pt.OutputTokPerSec, pt.MeanTTFT*1e3, pt.PeakRunning, pt.PeakTokens, failed)
		}
		knee := "not seen"
		if c.Knee > 0 {
			knee = "at " + numfmt.Count(c.Knee, "client")
		}
		if n := c.leftOut(); n > 0 {
			knee += fmt.Sprintf(" (%s with failed or early-stopped requests left out)", numfmt.Count(n, "point"))
		}
		seqs, where := a.maxSeqs()
		engine, _ := a.engineSeqs()
		bound := c.seqsBound(engine)
		if seqs > engine {
			bound = fmt.Sprintf("higher than this engine's %d (a %s) because a verification run's own engine ran more", engine, bound)
		}
		fmt.Fprintf(w, "  max concurrent sequences %d (ran in %s; the profile's max_seqs, %s); throughput/TTFT knee %s\n", seqs, where, bound, knee)
		held, run := a.heldKV()
		if held == 0 {
			fmt.Fprintf(w, "  max concurrent tokens not measured (no run on this engine held any: their requests failed); the profile records no kv\n")
			return
		}
		ramp := ""
		if held > c.MaxTokens {
			ramp = fmt.Sprintf("; the ramp's peak %d", c.MaxTokens)
		}
		fmt.Fprintf(w, "  max concurrent tokens %d (held in %s; the profile's kv.max_concurrent_tokens, a measured lower bound on KV capacity%s)\n",
			held, run, ramp)
	}
}

// ClearRuns removes from dir the run traces an earlier calibration wrote
// there (RunPlan's NN-NAME.parquet files) and returns how many: a new
// calibration replaces them all, so that a refit of dir never mixes the
// later runs of the old one with the runs of the new. A file named like
// one that is not a calibration run (a recording, 2024-05-chat.parquet)
// is the user's and stays, as LoadRuns skips it. The runs go all or none:
// the rest of a calibration would refit as one of fewer runs. The runs an
// interrupted clearing moved aside go with them.
func ClearRuns(dir string) (int, error) {
	paths, err := runTraces(dir)
	if err != nil {
		return 0, err
	}
	n, err := clearRuns(dir, paths)
	if err != nil {
		return n, err
	}
	m, err := removeCleared(dir)
	return n + m, err
}

// clearRuns moves paths, the runs in dir, aside and removes them.
func clearRuns(dir string, paths []string) (int, error) {
	if len(paths) == 0 {
		return 0, nil
	}
	// Moved aside first, into a directory LoadRuns does not read, so that
	// a file that cannot be moved leaves every run in place.
	trash, err := os.MkdirTemp(dir, clearedPrefix)
	if err != nil {
		return 0, err
	}
	for i, p := range paths {
		if err := renameFile(p, filepath.Join(trash, filepath.Base(p))); err != nil {
			return 0, errors.Join(err, putBack(paths[:i], trash))
		}
	}
	if err := os.RemoveAll(trash); err != nil {
		return len(paths), fmt.Errorf("the %d earlier runs were moved to %s, which could not be removed: %w", len(paths), trash, err)
	}
	return len(paths), nil
}

// clearedPrefix starts the name of the directory ClearRuns moves runs to
// before removing them; a killed process leaves it behind.
const clearedPrefix = ".cleared-runs-"

// clearedDirs lists the directories in dir that a clearing killed before
// it removed them left behind.
func clearedDirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), clearedPrefix) {
			dirs = append(dirs, filepath.Join(dir, e.Name()))
		}
	}
	return dirs, nil
}

// removeCleared removes the directories interrupted clearings left in dir
// and returns how many runs they held: the runs of a calibration that was
// being replaced.
func removeCleared(dir string) (int, error) {
	dirs, err := clearedDirs(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range dirs {
		runs, _ := runTraces(d)
		if err := os.RemoveAll(d); err != nil {
			return n, fmt.Errorf("%s, left by an interrupted clearing of earlier runs, could not be removed: %w", d, err)
		}
		n += len(runs)
	}
	return n, nil
}

// checkCleared refuses dir when an interrupted clearing moved some of its
// runs aside: the rest would refit as a calibration of fewer runs.
func checkCleared(dir string) error {
	dirs, err := clearedDirs(dir)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if runs, _ := runTraces(d); len(runs) > 0 {
			return fmt.Errorf("%s holds %d runs that a calibration stopped while clearing %s moved aside: the runs left in %s are not a whole calibration; move them back to refit it (unless some were already removed), or calibrate again, which removes them",
				d, len(runs), dir, dir)
		}
	}
	return nil
}

// renameFile is os.Rename; tests replace it to make a run unmovable.
var renameFile = os.Rename

// runTraces lists the calibration run traces in dir; none when dir does
// not exist.
func runTraces(dir string) ([]string, error) {
	paths, err := dirmatch.Files(dir, "[0-9][0-9]*-*.parquet")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // nothing written there yet
	} else if err != nil {
		return nil, err
	}
	var runs []string
	for _, p := range paths {
		num, _, _ := strings.Cut(filepath.Base(p), "-")
		if _, err := strconv.Atoi(num); err == nil && isRunTrace(p) {
			runs = append(runs, p)
		}
	}
	return runs, nil
}

// putBack moves the runs ClearRuns moved to trash back to their paths,
// and removes trash once it is empty.
func putBack(paths []string, trash string) error {
	var errs []error
	for _, p := range paths {
		if err := renameFile(filepath.Join(trash, filepath.Base(p)), p); err != nil {
			errs = append(errs, fmt.Errorf("%s stays in %s: %w", filepath.Base(p), trash, err))
		}
	}
	if len(errs) == 0 {
		os.Remove(trash)
	}
	return errors.Join(errs...)
}

// isRunTrace says whether path is a trace RunPlan wrote: one whose
// metadata names its calibration run.
func isRunTrace(path string) bool {
	r, err := traces.Open(path)
	if err != nil {
		return false
	}
	defer r.Close()
	return r.Meta().Extra["calibrate_run"] != ""
}

// LoadRuns reads back the runs RunPlan wrote to dir (its NN-<run>.parquet
// files, in the order RunPlan wrote them: by the number NN, which passes
// two digits after 99, then by name), so that they can be analysed again
// without the engine. Files that are not calibration runs are skipped; a
// calibration run's file without requests is an error.
func LoadRuns(dir string) ([]*RunResult, error) {
	// A directory that is not there would read as a calibration that
	// wrote no runs: name it for what it is.
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("calibrate: %s is not a directory: want the directory of a calibration's traces (its --trace-out)", dir)
	}
	if err := checkCleared(dir); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	paths, err := dirmatch.Files(dir, "*.parquet")
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	// A name without a number sorts after every numbered one.
	seq := func(path string) int {
		num, _, ok := strings.Cut(filepath.Base(path), "-")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 0 {
			return math.MaxInt
		}
		return n
	}
	slices.SortFunc(paths, func(a, b string) int { return cmp.Or(cmp.Compare(seq(a), seq(b)), strings.Compare(a, b)) })
	var out []*RunResult
	seen := map[string]string{} // run name → its file
	for _, path := range paths {
		r, err := ReadRun(path)
		if err != nil {
			return nil, err
		}
		if r.Spec.Kind == "" {
			continue // not a calibration run
		}
		// Every run sends a request: a run's trace without one is damaged,
		// and skipping it would fit one run fewer unseen.
		if len(r.Rows) == 0 {
			return nil, fmt.Errorf("calibrate: %s: calibration run %s holds no requests: want the rows of its trace (is the file cut short?)", path, r.Spec.Name)
		}
		// A plan's run names are unique (every slot reset is "reset"):
		// one found twice is from another calibration in the same place.
		if r.Spec.Kind != KindReset {
			if prev, ok := seen[r.Spec.Name]; ok {
				return nil, fmt.Errorf("calibrate: %s and %s both hold run %s: traces of two calibrations in %s (refit each from a directory of its own)",
					prev, path, r.Spec.Name, dir)
			}
			seen[r.Spec.Name] = path
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("calibrate: no calibration runs in %s", dir)
	}
	return out, nil
}

// ReadRun reads one run's trace back. Its spec comes from the file's
// metadata and rows (Kind "" when the file is not a calibration run);
// the summary is recomputed from the rows (throughput over first send to
// last token, mean TTFT and TPOT of the successful requests). A
// calibration run's metadata value that is not the number it stands for
// is an error naming the file, the key and what it should hold.
func ReadRun(path string) (*RunResult, error) {
	meta, rows, err := traces.ReadAll(path)
	if err != nil {
		return nil, err
	}
	name := meta.Extra["calibrate_run"]
	spec := RunSpec{Name: name, Kind: meta.Extra["calibrate_kind"], Requests: len(rows), Repeat: 1}
	var reset, shared, conc int64
	var salt uint64
	var tm replay.TextModel
	// A key that is absent (a trace written before it was recorded)
	// leaves its 0; one that holds no such number is an error, not a 0
	// that changes the refit unseen (a run never reset, no clients).
	var bad []string
	count := func(key string, dst *int64, limit int64) {
		if v := meta.Extra[key]; v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || n > limit {
				bad = append(bad, fmt.Sprintf("%s = %q, want an integer ≥ 0 up to %d", key, v, limit))
				return
			}
			*dst = n
		}
	}
	number := func(key string, dst *float64, nonNeg bool) {
		if v := meta.Extra[key]; v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !finite(f) || nonNeg && f < 0 {
				want := "a finite number"
				if nonNeg {
					want += " ≥ 0"
				}
				bad = append(bad, fmt.Sprintf("%s = %q, want %s", key, v, want))
				return
			}
			*dst = f
		}
	}
	count("slot_reset_tokens", &reset, math.MaxInt64)
	count("shared_prompt_tokens", &shared, math.MaxInt32)
	count("concurrency", &conc, math.MaxInt32)
	if v := meta.Extra["prompt_salt"]; v != "" {
		var err error
		if salt, err = strconv.ParseUint(v, 10, 64); err != nil {
			bad = append(bad, fmt.Sprintf("prompt_salt = %q, want an unsigned integer", v))
		}
	}
	number("tokens_per_byte", &tm.TokensPerByte, true)
	number("prompt_overhead_tokens", &tm.Overhead, false)
	number("prompt_prefix_tokens", &tm.Prefix, true)
	// The kind sets the run's role in a refit, and the profile cites it:
	// one ParseProfile refuses would be fitted as a measured run.
	if k := spec.Kind; k != "" && !slices.Contains(traceKinds, k) {
		bad = append(bad, fmt.Sprintf("calibrate_kind = %q, want one of %s", k, strings.Join(traceKinds, ", ")))
	}
	// The repeat is the name's -rN suffix as RunPlan writes it (none: 1);
	// the spread over repeats groups runs by the name without it.
	if i := strings.LastIndex(name, "-r"); i >= 0 {
		n, err := strconv.Atoi(name[i+2:])
		if err != nil || n < 1 || strconv.Itoa(n) != name[i+2:] {
			bad = append(bad, fmt.Sprintf("calibrate_run = %q, want a name ending in -r and its repeat number ≥ 1 (e.g. decode-c4-p64-r2), or without -r", name))
		} else {
			spec.Repeat = n
		}
	}
	if len(bad) > 0 && spec.Kind != "" { // keys of calibration runs; another trace is skipped
		return nil, fmt.Errorf("calibrate: %s: metadata %s", path, strings.Join(bad, "; "))
	}
	spec.Concurrency = int(conc)
	for _, r := range rows {
		if !slices.Contains(spec.Prompts, int(r.PromptTokens)) {
			spec.Prompts = append(spec.Prompts, int(r.PromptTokens))
		}
		if !slices.Contains(spec.Outputs, int(r.OutputTokens)) {
			spec.Outputs = append(spec.Outputs, int(r.OutputTokens))
		}
	}
	ref, err := NewTraceRef(path)
	if err != nil {
		return nil, err
	}
	return &RunResult{Spec: spec, SlotReset: reset, Shared: int32(shared), Salt: salt, Text: tm, Rows: rows, Summary: Summarize(rows), Trace: &ref, Meta: meta}, nil
}

// Summarize computes the parts of a replay.Summary that Analyze uses from
// a run's rows: counts, mean TTFT and TPOT, and throughput over the run's
// traces.Window, as record rates it (warm-up rows left out).
func Summarize(rows []*traces.Request) *replay.Summary {
	s := &replay.Summary{Run: 1, FailedByKind: map[string]int{}}
	var window traces.Window
	var ttft, tpot float64
	var out int64
	for _, r := range rows {
		if r.Warmup {
			s.Warmup++
			continue
		}
		s.Sent++
		window.Add(r)
		if !r.Succeeded() {
			s.Failed++
			s.FailedByKind[replay.ErrorKind(r.Error)]++
			continue
		}
		s.Succeeded++
		out += int64(max(r.UsageOutput, 0))
		if v, ok := r.TTFT(); ok {
			ttft += float64(v)
			s.TTFT.N++
		}
		if v, ok := r.TPOT(); ok {
			tpot += v
			s.TPOT.N++
		}
	}
	if s.TTFT.N > 0 {
		s.TTFT.Mean = time.Duration(ttft / float64(s.TTFT.N))
	}
	if s.TPOT.N > 0 {
		s.TPOT.Mean = time.Duration(tpot / float64(s.TPOT.N))
	}
	s.Wall = window.Duration()
	s.RequestsPerSec = window.PerSec(int64(s.Succeeded))
	s.OutputTokensPerSec = window.PerSec(out)
	return s
}

// ReadCitedRun reads back the run at path that a profile cites as ref
// (path: where ref's file was found), in the role the profile's fit gave
// it: ref's kind (warm-up and slot resets are replayed, not fitted) and
// ref's slots (a run that had an engine of its own starts on a fresh
// cache of them). A ref without a kind, from a profile written before
// they were recorded (which cites only fitted runs), leaves the kind the
// trace's metadata gives, or mixed for a trace without one (a
// verification run's). A run without a name is named after its file.
func ReadCitedRun(path string, ref TraceRef) (*RunResult, error) {
	run, err := ReadRun(path)
	if err != nil {
		return nil, err
	}
	run.Spec.Kind = cmp.Or(ref.Kind, run.Spec.Kind, KindMixed)
	run.Spec.Name = cmp.Or(run.Spec.Name, filepath.Base(path))
	run.Slots = ref.Slots
	return run, nil
}
