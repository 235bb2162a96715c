package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/traces"
)

// KindVerify is the calibrate run kind of a verification replay.
const KindVerify = "verify"

// RefitOptions configure Refit.
type RefitOptions struct {
	Out     string                   // the new profile's path
	Analyze calibrate.AnalyzeOptions // zero: calibrate's defaults, relative error
}

// RefitResult is what folding the verification runs into the profile
// did.
type RefitResult struct {
	Out          string `json:"out"`
	Parent       string `json:"parent"`
	ParentSHA256 string `json:"parent_sha256"`
	OldRuns      int    `json:"old_runs"` // the parent's calibration runs found and unchanged
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
	// Held-out step error (calibrate.CrossCheck) of the parent and of the
	// refit.
	HeldOutBefore *float64 `json:"heldout_mdape_before"`
	HeldOutAfter  *float64 `json:"heldout_mdape_after"`
	// Per metric, the median |relative error| of the candidates'
	// predictions against the measurements, simulated with the parent
	// and with the refitted profile. The refit has seen these runs, so
	// "after" is an in-sample error.
	MetricErrorBefore map[string]float64 `json:"metric_error_before"`
	MetricErrorAfter  map[string]float64 `json:"metric_error_after"`
	Error             string             `json:"error,omitempty"`
}

// Refit folds the measured verification runs of res into the profile of
// opt: it loads the parent's calibration traces (checked by sha256),
// adds every measured candidate's trace as a run, refits with
// calibrate.Analyze (step recovery from per-token timestamps, windowing,
// trimming, NNLS, cross-check), reports the error before and after, and
// saves the new profile with the parent in its lineage.
func Refit(ctx context.Context, res *Result, opt Options, ro RefitOptions) (*RefitResult, error) {
	parent := opt.Profile
	if parent == nil || opt.ProfilePath == "" {
		return nil, errors.New("refit needs the calibration profile (--profile)")
	}
	if ro.Out == "" {
		return nil, errors.New("refit needs an output path for the new profile")
	}
	rr := &RefitResult{Out: ro.Out, Parent: opt.ProfilePath, ParentSHA256: res.ProfileSHA256, Missing: []string{}, NewTraces: []string{},
		HeldOutBefore: parent.Quality.HeldOutMdAPE, MetricErrorBefore: res.MedianAbsError}
	var runs []*calibrate.RunResult
	for _, ref := range parent.Traces {
		path := ref.Path
		if _, err := os.Stat(path); err != nil && !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(opt.ProfilePath), ref.Path) // relative to the profile
		}
		sum, err := calibrate.FileSHA256(path)
		if err != nil || sum != ref.SHA256 {
			rr.Missing = append(rr.Missing, ref.Path)
			continue
		}
		run, err := calibrate.ReadRun(path)
		if err != nil {
			return nil, err
		}
		if run.Spec.Kind == "" {
			run.Spec.Name, run.Spec.Kind = filepath.Base(path), calibrate.KindMixed
		}
		r := ref
		run.Trace = &r
		runs = append(runs, run)
		rr.OldRuns++
	}
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
			_, rows, err := traces.ReadAll(path)
			if err != nil {
				return nil, err
			}
			ref, err := calibrate.NewTraceRef(path)
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("verify-rank%02d", c.Rank)
			if len(measured) > 1 {
				name += fmt.Sprintf(".run%d", k+1)
			}
			spec := calibrate.RunSpec{Name: name, Kind: KindVerify, Requests: len(rows), Repeat: k + 1}
			run := &calibrate.RunResult{Spec: spec, Rows: rows, Summary: calibrate.Summarize(rows), Trace: &ref}
			if opt.Engine != nil {
				run.Slots = c.Knobs.MaxNumSeqs // its own engine, restarted with the candidate's slots
			}
			runs = append(runs, run)
			rr.NewRuns++
			rr.NewTraces = append(rr.NewTraces, path)
		}
	}
	if rr.NewRuns == 0 {
		return rr, errors.New("no verification run was measured: nothing to fold in")
	}
	ao := ro.Analyze
	if ao == (calibrate.AnalyzeOptions{}) {
		ao.Relative = true
		if n := countMeasured(runs); n < 4 {
			ao.HeldOutK = max(n, 2) // hold out at least one whole run
		}
	}
	a, err := calibrate.Analyze(runs, ao)
	if err != nil {
		return rr, err
	}
	// Step error on the verification runs, before and after.
	var vsteps []calibrate.Observation
	for _, o := range a.Steps {
		if a.Runs[o.Run].Spec.Kind == KindVerify {
			vsteps = append(vsteps, o)
		}
	}
	vobs, _ := calibrate.WindowSteps(nil, nil, vsteps, a.Window)
	rr.VerifySteps = len(vobs)
	rr.StepMdAPEBefore = stepMdAPE(parent.Step, vobs)
	rr.StepMdAPEAfter = stepMdAPE(a.Fit.Step, vobs)

	info := calibrate.EngineInfo{Engine: parent.Engine, EngineVersion: parent.EngineVersion, EngineArgs: parent.EngineArgs,
		Model: parent.Model, Precision: parent.Precision, Device: parent.Device, TensorParallel: parent.TensorParallel, BlockSize: parent.BlockSize}
	np := a.Profile(info, parent.Power, time.Now())
	if np.Admission == nil {
		np.Admission = parent.Admission // verification runs have no admission probes
	}
	if np.KV == nil {
		np.KV = parent.KV // the memory runs were not found: keep what was measured
	}
	np.Lineage = append(np.Lineage, parent.Lineage...)
	if err := np.AddLineage("parent", opt.ProfilePath); err != nil {
		return rr, err
	}
	rr.HeldOutAfter = np.Quality.HeldOutMdAPE
	if err := np.Save(ro.Out); err != nil {
		return rr, err
	}

	// Metric error after: re-simulate each measured candidate with the
	// refitted profile.
	step, desc, err := StepModel(np, ro.Out)
	if err != nil {
		return rr, err
	}
	plans := map[int64]string{}
	for _, c := range opt.Candidates.Candidates {
		plans[c.Index] = c.Plan
	}
	var after []CandidateResult
	for _, c := range res.Candidates {
		if c.Status != StatusOK {
			continue
		}
		p, err := plan.Parse([]byte(plans[c.Index]))
		if err != nil {
			return rr, err
		}
		r, err := p.Resolve(opt.Catalog)
		if err != nil {
			return rr, err
		}
		ApplyProfileKV(r, np)
		name := fmt.Sprintf("rank%02d", c.Rank)
		pred, _, err := simulate(ctx, r, opt.Out, filepath.Join(opt.Out, name+".refit.sim.parquet"), name, c.TimeScale, step, desc, res.Input)
		if err != nil {
			return rr, err
		}
		after = append(after, CandidateResult{Rows: CompareMetrics(pred, &c.Measured, opt.Tolerances)})
	}
	rr.MetricErrorAfter = MedianAbsErrors(after)
	return rr, nil
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

// Print writes the refit for people.
func (rr *RefitResult) Print(w io.Writer) {
	if rr.Error != "" {
		fmt.Fprintf(w, "refit: failed: %s\n", rr.Error)
		return
	}
	fmt.Fprintf(w, "refit: %d calibration runs + %d verification runs → %s (parent %s)\n", rr.OldRuns, rr.NewRuns, rr.Out, rr.Parent)
	if len(rr.Missing) > 0 {
		fmt.Fprintf(w, "  left out (missing or changed): %d of the parent's traces\n", len(rr.Missing))
	}
	fmt.Fprintf(w, "  step error on the %d verification steps: %s before → %s after; held-out step error %s → %s\n",
		rr.VerifySteps, fmtPct(rr.StepMdAPEBefore), fmtPct(rr.StepMdAPEAfter), fmtPct(rr.HeldOutBefore), fmtPct(rr.HeldOutAfter))
	fmt.Fprintf(w, "  median |error| of the predictions (before → after, in-sample):")
	for _, m := range MetricNames {
		b, okB := rr.MetricErrorBefore[m]
		a, okA := rr.MetricErrorAfter[m]
		if !okB {
			b = math.NaN()
		}
		if !okA {
			a = math.NaN()
		}
		if okB || okA {
			fmt.Fprintf(w, " %s %s→%s", m, fmtPct(sec(b)), fmtPct(sec(a)))
		}
	}
	fmt.Fprintln(w)
}

func fmtPct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

// countMeasured counts the runs Analyze fits (warm-up excluded).
func countMeasured(runs []*calibrate.RunResult) int {
	n := 0
	for _, r := range runs {
		if r.Spec.Kind != calibrate.KindWarmup {
			n++
		}
	}
	return n
}
