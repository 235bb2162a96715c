package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/relpath"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/traces"
)

// KindVerify is the calibrate run kind of a verification replay.
const KindVerify = calibrate.KindVerify

// RefitOptions configure Refit.
type RefitOptions struct {
	Out     string                   // the new profile's path
	Analyze calibrate.AnalyzeOptions // zero: calibrate's defaults, relative error
}

// RefitResult is what folding the verification runs into the profile
// did.
type RefitResult struct {
	Out          string `json:"out"` // the new profile; "" when none was saved
	Parent       string `json:"parent"`
	ParentSHA256 string `json:"parent_sha256"`
	OldRuns      int    `json:"old_runs"` // the parent's fitted calibration runs found and unchanged
	NewRuns      int    `json:"new_runs"` // verification runs added
	// Missing are the parent's traces that were not found or whose sha256
	// changed; they are left out of the refit.
	Missing   []string `json:"missing"`
	NewTraces []string `json:"new_traces"`
	// Steps: median |relative error| of the step time on the
	// verification runs' recovered steps (decode steps averaged in
	// windows, nothing trimmed), with the parent's coefficients and with
	// the refitted ones.
	VerifySteps     int      `json:"verify_steps"`
	StepMdAPEBefore *float64 `json:"step_mdape_before"`
	StepMdAPEAfter  *float64 `json:"step_mdape_after"`
	// StepBias: per verification run (verify-rankNN[.runK]), how far off
	// the parent's coefficients and the refitted ones were on its steps.
	StepBiasBefore map[string]StepBias `json:"step_bias_before"`
	StepBiasAfter  map[string]StepBias `json:"step_bias_after"`
	// Held-out step error (calibrate.CrossCheck) of the parent and of the
	// refit.
	HeldOutBefore *float64 `json:"heldout_mdape_before"`
	HeldOutAfter  *float64 `json:"heldout_mdape_after"`
	// Per metric, the median |relative error| of the candidates'
	// predictions against the measurements, simulated with the parent
	// and with the refitted profile. The refit has seen these runs, so
	// "after" is an in-sample error.
	MetricErrorBefore Errors `json:"metric_error_before"`
	MetricErrorAfter  Errors `json:"metric_error_after"`
	// MetricErrorAtSpeed is the same with the parent's coefficients
	// scaled, per candidate, to the decode speed measured on its engine
	// (StepBiasBefore): what is left once the engine's speed is taken as
	// measured is the scheduling and batching model's error.
	MetricErrorAtSpeed Errors `json:"metric_error_at_speed"`
	Error              string `json:"error,omitempty"`
}

// StepBias is the median (predicted − observed)/observed of a run's step
// times, for its steps that only decode and for those that compute prompt
// tokens (nil: the run had none). Negative: the engine's steps took
// longer than the profile says. A candidate whose metrics miss by what
// its decode steps miss by met an engine running at another speed than
// at calibration; the scheduler model is not what missed.
type StepBias struct {
	Decode *float64 `json:"decode"`
	Prompt *float64 `json:"prompt"`
}

// checkReportedKV: the KV capacity the engine reported, which run's trace
// at path records under calibrate.ReportedKVKey, parses where it is there.
// The fit reads it to tell a paged engine from one of slots, and skips one
// that does not parse: the refit would change unseen.
func checkReportedKV(path string, run *calibrate.RunResult) error {
	v, ok := run.Meta.Extra[calibrate.ReportedKVKey]
	if !ok {
		return nil
	}
	if _, err := calibrate.ParseReportedKV(v); err != nil {
		return fmt.Errorf("%s: metadata %s = %q: %w", path, calibrate.ReportedKVKey, v, err)
	}
	return nil
}

// Refit folds the measured verification runs of res into the profile of
// opt: it loads the parent's calibration traces (checked by sha256),
// adds every measured candidate's trace as a run, refits with
// calibrate.Analyze (step recovery from per-token timestamps, windowing,
// trimming, NNLS, cross-check), reports the error before and after, and
// saves the new profile with the parent in its lineage. A file renamed
// into place whose directory was not synced is written: the refit goes
// on, and returns its result with errors wrapping atomicfile.ErrDirNotSynced.
func Refit(ctx context.Context, res *Result, opt Options, ro RefitOptions) (*RefitResult, error) {
	parent := opt.Profile
	if parent == nil || opt.ProfilePath == "" {
		return nil, errors.New("refit needs the calibration profile (--profile)")
	}
	if ro.Out == "" {
		return nil, errors.New("refit needs an output path for the new profile")
	}
	if opt.Catalog == nil {
		opt.Catalog = model.DefaultCatalog()
	}
	rr := &RefitResult{Parent: opt.ProfilePath, ParentSHA256: res.ProfileSHA256, Missing: []string{}, NewTraces: []string{},
		HeldOutBefore: parent.Quality.HeldOutMdAPE, MetricErrorBefore: res.MedianAbsError}
	var runs []*calibrate.RunResult
	parentDir, outDir := filepath.Dir(opt.ProfilePath), filepath.Dir(ro.Out)
	for _, ref := range parent.Traces {
		path, ok := findTrace(parentDir, ref)
		if !ok {
			rr.Missing = append(rr.Missing, ref.Path)
			continue
		}
		// In the role the parent's fit gave it: its kind, and the slots of
		// an engine of its own (an earlier refit's verification run).
		run, err := calibrate.ReadCitedRun(path, ref)
		if err != nil {
			return nil, err
		}
		if err := checkReportedKV(path, run); err != nil {
			return nil, err
		}
		r := ref
		r.Path = path // from the current directory, until the new profile is saved
		run.Trace = &r
		runs = append(runs, run)
		if k := run.Spec.Kind; k != calibrate.KindWarmup && k != calibrate.KindReset {
			rr.OldRuns++ // as the plan counts runs: the warm-up and slot resets are replayed, not fitted
		}
	}
	calibrate.NameEngine(runs, parent.Engine+" "+parent.EngineVersion)
	verifying := map[*calibrate.RunResult]bool{} // this verification's runs, not the parent's
	for _, c := range res.Candidates {
		if c.Status != StatusOK {
			continue
		}
		// Every measured run of the candidate (one unless --repeat).
		measured := c.Repeats
		if len(measured) == 0 {
			measured = []Repeat{c.Repeat}
		}
		for k, m := range measured {
			path := m.Trace
			meta, rows, err := traces.ReadAll(path)
			if err != nil {
				return nil, err
			}
			ref, err := calibrate.NewTraceRef(path)
			if err != nil {
				return nil, err
			}
			name := runName(c.Rank)
			if len(measured) > 1 {
				name += fmt.Sprintf(".run%d", k+1)
			}
			spec := calibrate.RunSpec{Name: name, Kind: KindVerify, Requests: len(rows), Repeat: k + 1}
			// Meta carries the trace's block size: prompts sharing prefix
			// hashes share text, which a slot's prompt cache keeps.
			run := &calibrate.RunResult{Spec: spec, Rows: rows, Summary: calibrate.Summarize(rows), Trace: &ref, Meta: meta}
			if opt.Engine != nil {
				run.Slots = c.Knobs.MaxNumSeqs // its own engine, restarted with the candidate's slots
			}
			runs = append(runs, run)
			verifying[run] = true
			rr.NewRuns++
			rr.NewTraces = append(rr.NewTraces, path)
		}
	}
	if rr.NewRuns == 0 {
		return rr, errors.New("no verification run was measured: nothing to fold in")
	}
	ao := ro.Analyze
	if ao == (calibrate.AnalyzeOptions{}) {
		// The parent's method, else calibrate's defaults.
		ao.Relative, ao.HeldOutK = true, 4
		if m := parent.Method; m != nil {
			var err error
			if ao, err = m.Options(); err != nil {
				return rr, err
			}
		}
		if n := countMeasured(runs); n < ao.HeldOutK {
			ao.HeldOutK = max(n, 2) // hold out at least one whole run
		}
	}
	a, err := calibrate.Analyze(runs, ao)
	if err != nil {
		return rr, err
	}
	if err := checkSlotsFound(parent, a, rr.Missing); err != nil {
		return rr, err
	}
	// Step error on the verification runs, before and after (the
	// parent's own, an earlier refit's, were fitted before).
	var vsteps []calibrate.Observation
	for _, o := range a.Steps {
		if verifying[a.Runs[o.Run]] {
			vsteps = append(vsteps, o)
		}
	}
	vobs, _ := calibrate.WindowSteps(nil, nil, vsteps, a.Method.Window)
	rr.VerifySteps = len(vobs)
	rr.StepMdAPEBefore = stepMdAPE(parent.Step, vobs)
	rr.StepMdAPEAfter = stepMdAPE(a.Fit.Step, vobs)
	rr.StepBiasBefore = stepBias(parent.Step, vobs, a.Runs)
	rr.StepBiasAfter = stepBias(a.Fit.Step, vobs, a.Runs)

	info := calibrate.EngineInfo{Engine: parent.Engine, EngineVersion: parent.EngineVersion, EngineArgs: parent.EngineArgs,
		Model: parent.Model, Precision: parent.Precision, Device: parent.Device, TensorParallel: parent.TensorParallel, BlockSize: parent.BlockSize,
		ReportedKV: parent.KVReported} // read from /metrics before the parent's runs, not again
	if parent.Engine == calibrate.VidurEngine {
		// A prior's engine is Vidur's profiler; these steps were timed on
		// an engine verify does not know the name of.
		info.Engine = ""
	}
	np := a.Profile(info, parent.Power, time.Now())
	if np.Admission == nil {
		np.Admission = parent.Admission // verification runs have no admission probes
	}
	if np.KV == nil {
		np.KV = parent.KV // the memory runs were not found: keep what was measured
	}
	if a.Concurrency == nil {
		np.MaxSeqs = refitMaxSeqs(parent.MaxSeqs, a)
	}
	// The new profile names its files from its own directory, as the
	// parent named its own from the parent's.
	for i := range np.Traces {
		np.Traces[i].Path = relpath.From(outDir, np.Traces[i].Path)
	}
	for _, l := range parent.Lineage {
		l.Path = relpath.From(outDir, relpath.Resolve(parentDir, l.Path))
		np.Lineage = append(np.Lineage, l)
	}
	if err := np.AddLineage("parent", opt.ProfilePath); err != nil {
		return rr, err
	}
	np.Lineage[len(np.Lineage)-1].Path = relpath.From(outDir, opt.ProfilePath)
	rr.HeldOutAfter = np.Quality.HeldOutMdAPE
	// A profile, or a re-simulated trace, renamed into place whose
	// directory was not synced is written: the refit goes on, and
	// returns the errors at the end.
	var notSynced []error
	if err := np.Save(ro.Out); err != nil {
		if !atomicfile.OnlyNotSynced(err) {
			return rr, err
		}
		notSynced = append(notSynced, err)
	}
	rr.Out = ro.Out // saved: named even if what follows fails

	// Metric error after: re-simulate each measured candidate with the
	// refitted profile, and with the parent's at the speed its engine
	// decoded at.
	after, err := resimulate(ctx, res, opt, "refit", &notSynced, func(CandidateResult) (*calibrate.Profile, string, string) { return np, ro.Out, "" })
	if err != nil {
		return rr, err
	}
	rr.MetricErrorAfter = MedianAbsErrors(after)
	atSpeed, err := resimulate(ctx, res, opt, "speed", &notSynced, func(c CandidateResult) (*calibrate.Profile, string, string) {
		p := *parent
		f := decodeSlowdown(rr.StepBiasBefore, c.Rank)
		p.Step = parent.Step.Scaled(f)
		return &p, opt.ProfilePath, fmt.Sprintf("; its step times ×%.3f, its engine's decode speed", f)
	})
	if err != nil {
		return rr, err
	}
	rr.MetricErrorAtSpeed = MedianAbsErrors(atSpeed)
	return rr, errors.Join(notSynced...)
}

// checkSlotsFound refuses a refit of a parent fitted to an engine of
// slots (Analyze held its per-sequence attention terms, which only slots
// do) whose runs found none, as when the memory runs that counted them
// are missing: it would fit a paged engine's terms instead, and rate the
// parent on steps without the slot cache the simulator gives it.
func checkSlotsFound(parent *calibrate.Profile, a *calibrate.Analysis, missing []string) error {
	m := parent.Method
	if m == nil || a.Slots > 0 {
		return nil // a profile without its method does not say how it chose
	}
	for _, t := range []calibrate.Term{calibrate.TermPrefillAttn, calibrate.TermDecodeContext} {
		if parent.Step.At(t).Status == calibrate.StatusOff && !slices.Contains(m.Without, t.String()) {
			return fmt.Errorf("the parent was fitted to an engine of slots (its %s term held at 0), but the runs found count no slots (%d of its %d traces found; its memory runs count them): the refit would fit a paged engine's terms; restore the parent's traces",
				t, len(parent.Traces)-len(missing), len(parent.Traces))
		}
	}
	return nil
}

// refitMaxSeqs is the max_seqs of a refit that found no memory runs: the
// parent's ramp, kept as its KV capacity is, raised as calibrate raises
// its ramp's by a fitted run (a verification run) that ran more at once.
// A parent that recorded none (0) keeps none: the verification runs alone
// would understate what its own runs measured.
func refitMaxSeqs(parent int, a *calibrate.Analysis) int {
	if parent == 0 {
		return 0
	}
	most, _ := a.MostRunning()
	return max(parent, most)
}

// resimulate predicts each measured candidate of res again with the
// profile that profileOf gives it (with its path and what was changed in
// it, for the step model's description), writing
// OUT/rankNN.SUFFIX.sim.parquet, and compares the predictions with the
// measurements. A trace renamed into place whose directory was not
// synced is written: its error goes to notSynced.
func resimulate(ctx context.Context, res *Result, opt Options, suffix string, notSynced *[]error, profileOf func(CandidateResult) (*calibrate.Profile, string, string)) ([]CandidateResult, error) {
	// By rank, which is unique (parseCandidates, Result.check); two
	// candidates may share an index.
	plans := map[int64]string{}
	for _, c := range opt.Candidates.Candidates {
		plans[c.Rank] = c.Plan
	}
	var out []CandidateResult
	for _, c := range res.Candidates {
		if c.Status != StatusOK {
			continue
		}
		prof, path, changed := profileOf(c)
		step, desc, err := StepModel(prof, path)
		if err != nil {
			return nil, err
		}
		desc += changed
		p, err := plan.Parse([]byte(plans[c.Rank]))
		if err != nil {
			return nil, err
		}
		r, err := p.ResolveMeasured(opt.Catalog, ProfileKV(prof, path))
		if err != nil {
			return nil, err
		}
		src := simSource{toolVersion: opt.Replay.ToolVersion, input: res.Input, inputSHA256: res.InputSHA256, profile: path, prof: prof, catalogSHA256: opt.CatalogSHA256,
			wait: opt.SessionWait} // sessions' turns held as the runs held them
		if path != "" {
			if src.profileSHA256, err = calibrate.FileSHA256(path); err != nil {
				return nil, err
			}
		}
		name := candidateName(c.Rank)
		pred, _, err := simulate(ctx, r, opt.Out, filepath.Join(opt.Out, name+"."+suffix+".sim.parquet"), name, c.TimeScale, step, desc, src)
		if err != nil && pred != nil { // written, its directory not synced
			*notSynced = append(*notSynced, err)
		} else if err != nil {
			return nil, err
		}
		// Priced as verify priced the candidate: its measured cost keeps
		// its basis (an older result's, hardware, is its usd_per_m_out).
		meas := c.Measured
		if c.CostBasis != CostHardwareEnergy || pred.JPerOutTok == nil {
			pred.USDPerMOut, meas.USDPerMOut = pred.USDPerMOutHardware, rankingCost(&c.Measured, c.CostBasis, CostHardware)
		}
		out = append(out, CandidateResult{Rows: CompareMetrics(pred, &meas, opt.Tolerances)})
	}
	return out, nil
}

// findTrace is the path, from the current directory, of the parent
// profile's trace ref: named from the profile's directory dir or, in a
// profile written before its paths were, from the current directory; the
// file must still have the sha256 the profile recorded.
func findTrace(dir string, ref calibrate.TraceRef) (string, bool) {
	paths := []string{ref.Path}
	if !filepath.IsAbs(ref.Path) {
		paths = []string{filepath.Join(dir, ref.Path), ref.Path}
	}
	for _, p := range paths {
		if sum, err := calibrate.FileSHA256(p); err == nil && sum == ref.SHA256 {
			return p, true
		}
	}
	return "", false
}

// runName names the calibration run of the candidate ranked rank; with
// repeats, ".runK" follows.
func runName(rank int64) string { return fmt.Sprintf("verify-rank%02d", rank) }

// decodeSlowdown is how many times longer the decode steps of the
// candidate ranked rank took than predicted: measured over predicted, the
// mean over its runs (1 when none had decode steps).
func decodeSlowdown(bias map[string]StepBias, rank int64) float64 {
	prefix := runName(rank)
	sum, n := 0.0, 0
	for name, b := range bias {
		if (name == prefix || strings.HasPrefix(name, prefix+".")) && b.Decode != nil {
			sum += 1 / (1 + *b.Decode)
			n++
		}
	}
	if n == 0 {
		return 1
	}
	return sum / float64(n)
}

// stepMdAPE is the median |predicted − observed| / observed over obs.
func stepMdAPE(c calibrate.StepCoefficients, obs []calibrate.Observation) *float64 {
	if len(obs) == 0 {
		return nil
	}
	pred := c.Predict(nil, obs)
	e := make([]float64, 0, len(obs))
	for i, o := range obs {
		if o.Seconds > 0 {
			e = append(e, math.Abs(pred[i]-o.Seconds)/o.Seconds)
		}
	}
	return sec(median(e))
}

// stepBias is, per run, the StepBias of c over its observations in obs.
func stepBias(c calibrate.StepCoefficients, obs []calibrate.Observation, runs []*calibrate.RunResult) map[string]StepBias {
	pred := c.Predict(nil, obs)
	type errs struct{ decode, prompt []float64 }
	by := map[string]*errs{}
	for i, o := range obs {
		if !(o.Seconds > 0) {
			continue
		}
		name := runs[o.Run].Spec.Name
		e := by[name]
		if e == nil {
			e = &errs{}
			by[name] = e
		}
		rel := (pred[i] - o.Seconds) / o.Seconds
		if o.PrefillTokens > 0 {
			e.prompt = append(e.prompt, rel)
		} else {
			e.decode = append(e.decode, rel)
		}
	}
	bias := make(map[string]StepBias, len(by))
	for name, e := range by {
		var b StepBias
		if len(e.decode) > 0 {
			b.Decode = sec(median(e.decode))
		}
		if len(e.prompt) > 0 {
			b.Prompt = sec(median(e.prompt))
		}
		bias[name] = b
	}
	return bias
}

// Print writes the refit for people.
func (rr *RefitResult) Print(w io.Writer) {
	if rr.Error != "" {
		fmt.Fprintf(w, "refit: failed: %s\n", rr.Error)
		if rr.Out != "" {
			fmt.Fprintf(w, "  the refitted profile was saved before that: %s\n", rr.Out)
		}
		return
	}
	fmt.Fprintf(w, "refit: %d calibration runs + %d verification runs → %s (parent %s)\n", rr.OldRuns, rr.NewRuns, rr.Out, rr.Parent)
	if len(rr.Missing) > 0 {
		fmt.Fprintf(w, "  left out (missing or changed): %d of the parent's traces\n", len(rr.Missing))
	}
	fmt.Fprintf(w, "  step error on the %d verification steps: %s before → %s after; held-out step error %s → %s\n",
		rr.VerifySteps, fmtPct(rr.StepMdAPEBefore), fmtPct(rr.StepMdAPEAfter), fmtPct(rr.HeldOutBefore), fmtPct(rr.HeldOutAfter))
	if len(rr.StepBiasBefore) > 0 {
		fmt.Fprintln(w, "  step time, predicted vs measured (median per run, before → after): decode steps; steps with a prompt")
		for _, name := range slices.Sorted(maps.Keys(rr.StepBiasBefore)) {
			b, a := rr.StepBiasBefore[name], rr.StepBiasAfter[name]
			fmt.Fprintf(w, "    %-18s %s → %s; %s → %s\n", name, fmtRel(b.Decode), fmtRel(a.Decode), fmtRel(b.Prompt), fmtRel(a.Prompt))
		}
	}
	fmt.Fprintf(w, "  median |error| of the predictions (before → after, in-sample):")
	for _, m := range MetricNames {
		b, okB := rr.MetricErrorBefore[m]
		a, okA := rr.MetricErrorAfter[m]
		if okB || okA {
			fmt.Fprintf(w, " %s %s→%s", m, fmtMedian(b, okB), fmtMedian(a, okA))
		}
	}
	fmt.Fprintln(w)
	printErrors(w, "  median |error| at each engine's decode speed (the parent's steps scaled to what each candidate's measured):", rr.MetricErrorAtSpeed)
}

// fmtMedian is a median |error| (ok: there is one), ∞ included.
func fmtMedian(v float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	return fmtAbsError(v)
}

// fmtPct is an MdAPE as the table's median |error| line writes an error.
func fmtPct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmtAbsError(*v)
}

// countMeasured counts the runs Analyze fits (warm-up and slot resets
// excluded).
func countMeasured(runs []*calibrate.RunResult) int {
	n := 0
	for _, r := range runs {
		if r.Spec.Kind != calibrate.KindWarmup && r.Spec.Kind != calibrate.KindReset {
			n++
		}
	}
	return n
}
