// Package verify replays the best configs of a sweep live and compares
// what the simulator predicted with what the engine did.
//
// For each candidate (sim/sweep.Candidate: a plan and a rate scale) Run
// optionally restarts the engine with the candidate's knobs (engine.go),
// replays the same trace slice with replay.Record at the candidate's rate
// (open loop, time scale 1/rate_scale, temperature 0, generated text
// kept), stops the engine, and re-simulates the same slice under the
// candidate's plan with the calibrated profile, so that predicted and
// measured refer to the same requests. compare.go lines the two up,
// metric by metric, against tolerances and ranks the candidates by
// measured cost (Kendall τ against the simulator's ranking);
// consistency.go compares the generated texts across candidates; refit.go
// folds the runs into the calibration profile. Verify composes sim/,
// replay/ and calibrate/ and holds no model of its own.
package verify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/urlshow"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
)

// ResultVersion is the schema version of verify.json.
const ResultVersion = 1

// Slice selects the requests to replay: the first Head (0 = all) of those
// arriving in [From, To) (To 0 = to the end), re-based to From.
type Slice struct {
	Head     int           `json:"head"`
	From, To time.Duration `json:"-"`
}

// String is the slice as the --slice flag writes it.
func (s Slice) String() string {
	switch {
	case s.Head > 0 && s.From == 0 && s.To == 0:
		return strconv.Itoa(s.Head)
	case s.From == 0 && s.To == 0:
		return "all"
	}
	to := ""
	if s.To > 0 {
		to = s.To.String()
	}
	str := s.From.String() + ":" + to
	if s.Head > 0 {
		str += " (first " + strconv.Itoa(s.Head) + ")"
	}
	return str
}

// Options configure Run.
type Options struct {
	Candidates *sweep.CandidateFile
	// Trace is the input trace (any format servesim reads); Slice cuts it.
	Trace string
	Slice Slice
	// Replay holds the connection settings (BaseURL, Model, APIKeyEnv,
	// Endpoint, Timeout, IgnoreEOS, Text; no Concurrency cap, which the
	// re-simulation does not have). Run sets Arrival
	// open, TimeScale 1/rate_scale, Temperature 0, KeepText, one repeat,
	// and one prompt salt for every candidate (the same prompts).
	Replay replay.Config
	// Engine restarts the engine per candidate; nil replays every
	// candidate against the engine already running at Replay.BaseURL.
	Engine *EngineSpec
	// Profile is the calibrated step model (nil: the roofline prior);
	// ProfilePath names it in the results.
	Profile     *calibrate.Profile
	ProfilePath string
	Catalog     *model.Catalog // nil = model.DefaultCatalog()
	// CatalogSHA256 is the hex sha256 of the catalog file Catalog loaded,
	// recorded in the simulated traces; "" for none.
	CatalogSHA256 string
	// Out receives input.parquet (the slice), per candidate rankNN.parquet
	// (measured), rankNN.sim.parquet (simulated) and rankNN.engine.log.
	Out        string
	Tolerances Tolerances
	// Refit, when not nil, folds the runs into the profile (refit.go).
	Refit *RefitOptions
	// GPUInterval > 0 samples the local NVIDIA GPUs through NVML during
	// each measured replay (rankNN.gpu.csv): energy per output token is
	// then measured. No driver is said once and leaves it unmeasured.
	GPUInterval time.Duration
	// GPUDevices, when not nil, are the GPUs the candidates' engine runs
	// on (NVML indices or UUIDs): only they are sampled, so that their
	// energy compares with the plan's devices' on a host with more.
	GPUDevices telemetry.DeviceSelection
	// SessionWait, when not nil, holds a row with a session_id until the
	// previous row of its session has ended, live (replay.Config's
	// SessionWait) and in the prediction (sim.RunSessionWait with its
	// turnaround): the two must wait alike to compare. nil sends every
	// row at its arrival; Replay.SessionWait is then refused.
	SessionWait *sim.SessionWait
	// Repeat measures each candidate this many times (0 or 1: once), each
	// on a freshly started engine when Engine is set, and compares the
	// prediction with the mean; the rows then carry the range the runs
	// spanned, so a miss can be told from the engine's own spread.
	Repeat int
	Log    io.Writer // progress; nil = none

	slice  sliceTokens // what the slice's requests hold (set by Run)
	source simSource   // what the candidates' simulations ran on (set by Run)
	// notSynced holds the errors of files renamed into place whose
	// directory was not synced: written, so the run goes on, and Run
	// returns them after.
	notSynced       []error
	noGPUDriverSaid bool // Run has said that there is no NVIDIA driver
}

// simSource is what a simulated trace records of what produced it, as
// simulate's do: the build, the input (the slice) by its sha256, and the
// profile by path and sha256 (a profile refitted in place keeps its
// path); no profile is the roofline prior.
type simSource struct {
	toolVersion            string
	input, inputSHA256     string
	profile, profileSHA256 string
	prof                   *calibrate.Profile // its power fit prices the predicted energy
	catalogSHA256          string
	wait                   *sim.SessionWait // nil: every row at its arrival
}

// Result is everything a verification found: verify.json, and the value
// the report's verification section draws.
type Result struct {
	Version     int       `json:"version"`
	ToolVersion string    `json:"tool_version"` // the build that wrote it; "" in files written before it was recorded
	CreatedAt   time.Time `json:"created_at"`
	Trace       string    `json:"trace"`
	Input       string    `json:"input"` // the sliced trace every candidate replayed
	InputSHA256 string    `json:"input_sha256"`
	Slice       string    `json:"slice"`
	// SessionWait is the turnaround of a held session turn when sessions'
	// turns waited for their previous turns (live and predicted); "" when
	// every row was sent at its arrival.
	SessionWait string `json:"session_wait,omitempty"`
	Requests    int    `json:"requests"` // measured: the slice's warm-up rows left out
	// SpecSHA256 and SweepTraceSHA256 identify the sweep the candidates
	// came from.
	SpecSHA256       string `json:"spec_sha256"`
	SweepTraceSHA256 string `json:"sweep_trace_sha256"`
	Profile          string `json:"profile"`
	ProfileSHA256    string `json:"profile_sha256"`
	CatalogSHA256    string `json:"catalog_sha256"` // the --catalog file, as the simulated traces record it; "" for none
	StepModel        string `json:"step_model"`
	// PowerModel is what priced the predicted energy: the profile's power
	// fit, or the catalog's idle and TDP figures.
	PowerModel string            `json:"power_model"`
	BaseURL    string            `json:"base_url"` // password masked, query left out
	Model      string            `json:"model"`
	EngineCmd  string            `json:"engine_cmd"`
	StopCmd    string            `json:"stop_cmd"`
	TextModel  replay.TextModel  `json:"text_model"`
	Tolerances Tolerances        `json:"tolerances"`
	Candidates []CandidateResult `json:"candidates"`
	// MedianAbsError is, per metric, the median |relative error| over the
	// measured candidates.
	MedianAbsError Errors       `json:"median_abs_error"`
	Ranking        Ranking      `json:"ranking"`
	Consistency    Consistency  `json:"consistency"`
	Refit          *RefitResult `json:"refit"`
	// ToleranceFailures counts metric rows outside tolerance; Incomplete
	// counts candidates that could not be measured (Status not ok).
	ToleranceFailures int `json:"tolerance_failures"`
	Incomplete        int `json:"incomplete"`
}

// CandidateResult is one candidate's verification.
type CandidateResult struct {
	Rank      int64   `json:"rank"`
	Index     int64   `json:"index"`
	Label     string  `json:"label"`
	RateScale float64 `json:"rate_scale"`
	TimeScale float64 `json:"time_scale"` // 1/rate_scale
	// CapacityLowerBound: the sweep's SLO held up to its search's limit
	// (candidates.json), so RateScale is that load, not the capacity,
	// and the figures, predicted and measured, are there.
	CapacityLowerBound bool  `json:"capacity_lower_bound,omitempty"`
	Knobs              Knobs `json:"knobs"`
	// CostBasis is what usd_per_m_out holds, predicted and measured alike:
	// CostHardwareEnergy or CostHardware; "" when not compared.
	CostBasis string `json:"cost_basis"`
	// Repeat is the measurement, its fields inline in the JSON. With
	// Options.Repeat > 1 it sums up Repeats: Measured is their mean (per
	// output token, their total over their total tokens; per second, over
	// their total window), FailedByKind
	// their sum, LagP99 their worst, and Trace, EngineLog and
	// GPU the first run's; for a candidate failed in a later run, it sums
	// up the runs that succeeded before it, and Status and Detail say the
	// failure.
	Repeat
	// SimTrace is the simulated trace (the same requests as Trace); empty
	// when the simulation failed.
	SimTrace string `json:"sim_trace"`
	// Wall is the candidate's wall-clock time, engine start to stop.
	WallSeconds float64 `json:"wall_seconds"`
	// SweepPredicted is what the sweep predicted over its whole trace (the
	// candidate file); Predicted is the re-simulation of the replayed
	// slice, the figures compared with Measured.
	SweepPredicted any         `json:"sweep_predicted"`
	SimOutcome     string      `json:"sim_outcome"`
	Predicted      Metrics     `json:"predicted"`
	Rows           []MetricRow `json:"rows"`
	Pass           *bool       `json:"pass"` // nil when not measured
	// Repeats are the measured runs when Options.Repeat > 1; empty for a
	// single run.
	Repeats []Repeat `json:"repeats,omitempty"`
}

// Repeat is one measured run of a candidate.
type Repeat struct {
	// Status is StatusOK or why the run was not measured (engine start
	// failed, health timeout, engine died mid-run, ...); Detail says more.
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Trace is the measured trace (empty when the replay wrote none: it
	// never ran, or failed), EngineLog the engine command's output.
	Trace        string         `json:"trace"`
	EngineLog    string         `json:"engine_log"`
	Measured     Metrics        `json:"measured"`
	FailedByKind map[string]int `json:"failed_by_kind"`
	LagP99       *float64       `json:"schedule_lag_p99_s"`
	LagFlagged   bool           `json:"schedule_lag_flagged"`
	// GPU is what NVML measured over the replay; nil when not sampled.
	GPU *GPUMeasure `json:"gpu"`
	// EnergyUnknown says why measured.j_per_out_tok is null though GPU
	// sampling was asked for (no driver, no samples, a window the samples
	// do not cover, other devices than the plan's, a GPU idle through the
	// window); "" otherwise.
	EnergyUnknown string `json:"energy_unknown,omitempty"`
}

// GPUMeasure is NVML's account of one candidate's replay. Wall time,
// energy and mean power cover the replay's measured window
// (traces.Window), as the measured device-seconds and the simulator's
// energy do; the Sampled fields cover every sample, as the CSV holds them
// (warm-up rows and the tail after the window included).
type GPUMeasure struct {
	CSV         string  `json:"csv"` // the samples
	Devices     int     `json:"devices"`
	WallSeconds float64 `json:"wall_seconds"`
	// EnergyJ and MeanPowerW (and SampledEnergyJ) are nil when no device
	// measured energy (no counter and no power reading, as on a MIG
	// instance) or the samples do not cover the window.
	EnergyJ      *float64 `json:"energy_j"`
	EnergySource string   `json:"energy_source"` // "counter", "power", "mixed"
	MeanPowerW   *float64 `json:"mean_power_w"`
	PeakMemBytes *int64   `json:"peak_mem_bytes"` // nil: not reported
	// JPerOutputTok is EnergyJ per output token; nil when energy was not
	// measured or the replay produced no output tokens.
	JPerOutputTok  *float64 `json:"j_per_output_token"`
	SampledSeconds float64  `json:"sampled_seconds"`  // first sample to last
	SampledEnergyJ *float64 `json:"sampled_energy_j"` // over SampledSeconds
	// IdleGPUs names the sampled GPUs that read 0% SM utilization and
	// unchanged memory used through the measured window, and the window:
	// almost surely not the engine's, their idle power counted in EnergyJ
	// (which is then not compared with the prediction).
	// "" when none did, they did not report utilization, or no sample fell
	// inside the window.
	IdleGPUs string `json:"idle_gpus,omitempty"`
	// idleDevices names the GPUs of IdleGPUs alone, without the window:
	// the same for every run on one host, so one reason for them all.
	idleDevices string
}

// Run verifies every candidate in turn; a candidate that cannot be
// measured is recorded with its status and the rest still run (when ctx
// is canceled, the rest are recorded as canceled, not run). It returns
// an error only for problems that stop everything (bad options, the trace,
// the output directory); tolerance failures are in the Result.
func Run(ctx context.Context, opt Options) (*Result, error) {
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	if opt.Candidates == nil || len(opt.Candidates.Candidates) == 0 {
		return nil, errors.New("verify: no candidates")
	}
	if opt.Out == "" {
		return nil, errors.New("verify: no output directory")
	}
	if opt.Catalog == nil {
		opt.Catalog = model.DefaultCatalog()
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	res := &Result{
		Version: ResultVersion, ToolVersion: opt.Replay.ToolVersion, CreatedAt: time.Now().UTC(), Trace: opt.Trace, Slice: opt.Slice.String(),
		SpecSHA256: opt.Candidates.SpecSHA256, SweepTraceSHA256: opt.Candidates.TraceSHA256,
		Profile: opt.ProfilePath, CatalogSHA256: opt.CatalogSHA256, BaseURL: urlshow.String(opt.Replay.BaseURL), Model: opt.Replay.Model, Tolerances: opt.Tolerances,
		Candidates: []CandidateResult{}, MedianAbsError: Errors{},
	}
	if opt.SessionWait != nil {
		res.SessionWait = opt.SessionWait.IssueGap.String()
	}
	if opt.Engine != nil {
		// A copy: the caller's spec is left as given.
		spec := *opt.Engine
		spec.BaseURL = opt.Replay.BaseURL
		opt.Engine = &spec
		res.EngineCmd, res.StopCmd = opt.Engine.Masked(opt.Engine.Start), opt.Engine.Masked(opt.Engine.Stop)
	}
	step, stepDesc, err := StepModel(opt.Profile, opt.ProfilePath)
	if err != nil {
		return nil, err
	}
	res.StepModel = stepDesc
	if _, res.PowerModel = PowerModel(opt.Profile, opt.ProfilePath); res.PowerModel == "" {
		res.PowerModel = CatalogPower
	}
	if opt.ProfilePath != "" {
		if res.ProfileSHA256, err = calibrate.FileSHA256(opt.ProfilePath); err != nil {
			return nil, err
		}
	}
	// The slice every candidate replays and is simulated on.
	res.Input = filepath.Join(opt.Out, "input.parquet")
	_, statErr := os.Stat(opt.Out)
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	if opt.slice, err = writeSlice(ctx, opt.Trace, res.Input, opt.Slice); err != nil {
		if !atomicfile.OnlyNotSynced(err) {
			if errors.Is(statErr, fs.ErrNotExist) {
				// Created for this run and holding nothing of it: left,
				// it would pass for a run's output.
				os.Remove(opt.Out)
			}
			return nil, err
		}
		opt.notSynced = append(opt.notSynced, err)
	}
	res.Requests = opt.slice.requests
	if res.InputSHA256, err = calibrate.FileSHA256(res.Input); err != nil {
		return nil, err
	}
	opt.source = simSource{toolVersion: opt.Replay.ToolVersion, input: res.Input, inputSHA256: res.InputSHA256,
		profile: opt.ProfilePath, profileSHA256: res.ProfileSHA256, prof: opt.Profile, catalogSHA256: opt.CatalogSHA256,
		wait: opt.SessionWait}
	cfg := opt.replayConfig(res.Input)
	if cfg.Salt == 0 {
		cfg.Salt = rand.Uint64() | 1 // one salt: every candidate gets the same prompts
	}
	host, port := hostPort(cfg.BaseURL)
	if opt.Engine == nil {
		fmt.Fprintf(log, "verify: no engine command: every candidate runs against the engine at %s as it is (its knobs are not applied)\n", urlshow.String(cfg.BaseURL))
	}
	var labels, unread []string
	var runs []map[RequestKey]string
	for _, cand := range opt.Candidates.Candidates {
		if err := ctx.Err(); err != nil {
			// Interrupted: the candidates left never run, and say so.
			res.Candidates = append(res.Candidates, notRun(cand, err, log))
			continue
		}
		cr := verifyOne(ctx, &opt, &cfg, cand, step, stepDesc, host, port, log)
		res.Candidates = append(res.Candidates, cr)
		if cr.Status == StatusOK {
			l, r, u := runTexts(&cr, log)
			labels, runs, unread = append(labels, l...), append(runs, r...), append(unread, u...)
		}
	}
	res.TextModel = cfg.Text
	res.Consistency = CompareOutputs(labels, runs)
	res.Consistency.Unread = unread
	res.finish()
	if opt.Refit != nil && ctx.Err() == nil {
		rr, err := Refit(ctx, res, opt, *opt.Refit)
		if err != nil && rr != nil && atomicfile.OnlyNotSynced(err) { // written, not failed
			opt.notSynced = append(opt.notSynced, err)
			err = nil
		}
		if err != nil {
			fmt.Fprintf(log, "verify: refit: %v\n", err)
			if rr == nil {
				rr = &RefitResult{}
			}
			// What it did before it failed stands: a profile it saved is
			// named, not left unmentioned at its path.
			rr.Error = err.Error()
		}
		res.Refit = rr
	}
	return res, errors.Join(append([]error{ctx.Err()}, opt.notSynced...)...)
}

// runTexts are the generated texts of each of the measured candidate's
// runs, labelled by candidate (and run, when it ran more than once): at
// temperature 0 a request's text differs from one start of the same
// engine to the next for the same reasons it does across candidates.
// unread says each run whose trace could not be read back.
func runTexts(cr *CandidateResult, log io.Writer) (labels []string, runs []map[RequestKey]string, unread []string) {
	type run struct{ label, trace string }
	all := []run{{cr.Label, cr.Trace}}
	if len(cr.Repeats) > 1 {
		all = all[:0]
		for k, rp := range cr.Repeats {
			all = append(all, run{fmt.Sprintf("%s (run %d)", cr.Label, k+1), rp.Trace})
		}
	}
	for _, r := range all {
		_, rows, err := traces.ReadAll(r.trace)
		if err != nil {
			// Its metrics stand; only its texts are missing.
			fmt.Fprintf(log, "verify: output consistency leaves out %s: %v\n", r.label, err)
			unread = append(unread, fmt.Sprintf("%s: %v", r.label, err))
			continue
		}
		labels, runs = append(labels, r.label), append(runs, outputTexts(rows))
	}
	return labels, runs, unread
}

// replayConfig is Replay as every candidate replays it; each candidate
// then sets its own time scale.
func (opt *Options) replayConfig(input string) replay.Config {
	cfg := opt.Replay
	cfg.Arrival, cfg.Temperature, cfg.KeepText, cfg.Repeat, cfg.Trace = replay.Open, 0, true, 1, input
	cfg.TimeScale = 1
	// As the prediction holds sessions' turns, or not.
	cfg.SessionWait = opt.SessionWait != nil
	if cfg.FlushEvery == 0 {
		cfg.FlushEvery = 500 * time.Millisecond
	}
	return cfg
}

// Validate checks the settings that would otherwise fail only once
// candidates run: the replay settings, the tolerances, the engine's
// health timeout and the GPU sampling interval. Run calls it before it
// writes anything.
func (opt *Options) Validate() error {
	cfg := opt.replayConfig("")
	errs := []error{cfg.Validate(), opt.Tolerances.Validate()}
	if opt.Engine != nil && opt.Engine.HealthTimeout < 0 {
		errs = append(errs, fmt.Errorf("verify: health timeout %v: want ≥ 0 (0 = 60 s)", opt.Engine.HealthTimeout))
	}
	if opt.GPUInterval < 0 {
		errs = append(errs, fmt.Errorf("verify: GPU interval %v: want ≥ 0 (0 = not sampled)", opt.GPUInterval))
	}
	if opt.Repeat < 0 || opt.Repeat > replay.MaxRepeat {
		errs = append(errs, fmt.Errorf("verify: repeat %d: want 1 to %d (0 = once)", opt.Repeat, replay.MaxRepeat))
	}
	if opt.Replay.SessionWait && opt.SessionWait == nil {
		// Turns held live would be compared with a prediction that sends
		// them at their arrivals.
		errs = append(errs, errors.New("verify: Replay.SessionWait: the re-simulation would not hold sessions' turns; set Options.SessionWait, which holds them in both"))
	}
	if w := opt.SessionWait; w != nil && (w.IssueGap < 0 || w.IssueGap > sim.MaxIssueGap) {
		errs = append(errs, fmt.Errorf("verify: session wait turnaround %v: want in [0, %v], a client's turnaround", w.IssueGap, sim.MaxIssueGap))
	}
	if n := opt.Replay.Concurrency; n != 0 {
		// Requests held at the client would be compared with a prediction
		// that queues them in the engine.
		errs = append(errs, fmt.Errorf("verify: Replay.Concurrency %d: the re-simulation caps no requests in flight; replay without a cap", n))
	}
	return errors.Join(errs...)
}

// finish computes the verdicts, median errors and ranking from the rows.
func (res *Result) finish() {
	res.ToleranceFailures, res.Incomplete = 0, 0
	for i := range res.Candidates {
		c := &res.Candidates[i]
		if c.Status != StatusOK {
			res.Incomplete++
			c.Pass = nil
			continue
		}
		pass := true
		for _, r := range c.Rows {
			if r.Pass != nil && !*r.Pass {
				pass = false
				res.ToleranceFailures++
			}
		}
		c.Pass = &pass
	}
	res.MedianAbsError = MedianAbsErrors(res.Candidates)
	res.Ranking = Rank(res.Candidates)
}

// notRun is a candidate that was never run, verify having been
// interrupted (err) before its turn.
func notRun(cand sweep.Candidate, err error, log io.Writer) CandidateResult {
	cr := CandidateResult{Rank: cand.Rank, Index: cand.Index, Label: cand.Label, RateScale: cand.RateScale, CapacityLowerBound: cand.CapacityLowerBound,
		SweepPredicted: cand.Predicted, Repeat: Repeat{Status: StatusCanceled, Detail: "not run: " + err.Error(), FailedByKind: map[string]int{}},
		Rows: []MetricRow{}}
	if ts, ok := TimeScaleOf(cand.RateScale); ok {
		cr.TimeScale = ts
	}
	fmt.Fprintf(log, "verify: #%d %s: %s: %s\n", cand.Rank, cand.Label, cr.Status, cr.Detail)
	return cr
}

// TimeScaleOf is 1/rateScale, the time scale a candidate replays at; ok
// is false unless both are positive and finite (a subnormal rate scale
// has an infinite inverse, which neither the simulator nor verify.json
// takes).
func TimeScaleOf(rateScale float64) (float64, bool) {
	ts := 1 / rateScale
	return ts, rateScale > 0 && !math.IsInf(rateScale, 0) && !math.IsInf(ts, 0)
}

// verifyOne runs one candidate: plan, engine, replay, engine check and
// stop, re-simulation, comparison.
func verifyOne(ctx context.Context, opt *Options, cfg *replay.Config, cand sweep.Candidate, step sim.StepTimer, stepDesc, host, port string, log io.Writer) (cr CandidateResult) {
	t0 := time.Now()
	name := candidateName(cand.Rank)
	cr = CandidateResult{Rank: cand.Rank, Index: cand.Index, Label: cand.Label, RateScale: cand.RateScale, CapacityLowerBound: cand.CapacityLowerBound,
		SweepPredicted: cand.Predicted, Repeat: Repeat{FailedByKind: map[string]int{}}, Rows: []MetricRow{}}
	// Named result: the deferred time reaches what is returned.
	defer func() { cr.WallSeconds = time.Since(t0).Seconds() }()
	fail := func(status, format string, a ...any) CandidateResult {
		cr.Status, cr.Detail = status, fmt.Sprintf(format, a...)
		fmt.Fprintf(log, "verify: #%d %s: %s: %s\n", cand.Rank, cand.Label, status, cr.Detail)
		// simulated, not measured: its predicted cost (and the runs'
		// before a failed repeat) on one basis, and that basis stated
		if cr.SimTrace != "" {
			cr.settleCostBasis(nil, nil)
		}
		return cr
	}
	ts, ok := TimeScaleOf(cand.RateScale)
	if !ok {
		return fail(StatusPlan, "rate_scale %v: want a positive number whose inverse (the time scale) is finite", cand.RateScale)
	}
	cr.TimeScale = ts
	p, err := plan.Parse([]byte(cand.Plan))
	if err != nil {
		return fail(StatusPlan, "%v", err)
	}
	// The simulator would predict the whole cluster, the replay measure
	// one engine: the two would not describe the same deployment.
	if p.Clustered() {
		return fail(StatusPlan, "[cluster] %s: verify replays against one engine and cannot measure a cluster of %d replicas", p.ClusterLabel(), p.Replicas())
	}
	r, err := p.ResolveMeasured(opt.Catalog, ProfileKV(opt.Profile, opt.ProfilePath))
	if err != nil {
		return fail(StatusPlan, "%v", err)
	}
	cr.Knobs = KnobsOf(p, cand, host, port)
	fmt.Fprintf(log, "verify: #%d %s: rate ×%.4g (time scale %.4g)\n", cand.Rank, cand.Label, cand.RateScale, cr.TimeScale)

	// Predicted: the same slice, the same time scale, the candidate's plan.
	simTrace := filepath.Join(opt.Out, name+".sim.parquet")
	pred, outcome, err := simulate(ctx, r, opt.Out, simTrace, name, cr.TimeScale, step, stepDesc, opt.source)
	if err != nil && pred != nil { // written, its directory not synced
		opt.notSynced = append(opt.notSynced, err)
	} else if err != nil {
		// Nothing written: a file of that name is an earlier run's.
		if ctx.Err() != nil { // interrupted, not a simulation that failed
			return fail(StatusCanceled, "%v", ctx.Err())
		}
		return fail(StatusSim, "%v", err)
	}
	cr.SimTrace, cr.Predicted, cr.SimOutcome = simTrace, *pred, outcome

	// Measured, once or Repeat times.
	runs := max(opt.Repeat, 1)
	var reps []Repeat
	for k := 1; k <= runs; k++ {
		rep := measure(ctx, opt, cfg, cr.TimeScale, cr.Knobs, p, measuredName(name, k, runs), log)
		reps = append(reps, rep)
		if rep.Status != StatusOK {
			break
		}
	}
	last := reps[len(reps)-1]
	if runs > 1 {
		cr.Repeats = reps
	}
	if last.Status != StatusOK {
		if len(reps) == 1 {
			cr.Repeat = last // its figures beside its own trace
			if runs > 1 {
				return fail(last.Status, "run 1 of %d: %s", runs, last.Detail)
			}
			return fail(last.Status, "%s", last.Detail)
		}
		// The figures of the runs that succeeded, beside their traces; the
		// failed run's own are in Repeats.
		cr.Repeat, _, _ = summarize(reps[:len(reps)-1])
		ok := "run 1, which succeeded"
		if n := len(reps) - 1; n > 1 {
			ok = fmt.Sprintf("the mean of runs 1–%d, which succeeded", n)
		}
		return fail(last.Status, "run %d of %d: %s; measured: %s", len(reps), runs, last.Detail, ok)
	}
	var lo, hi Metrics
	cr.Repeat, lo, hi = summarize(reps)
	cr.settleCostBasis(&lo, &hi)
	cr.Rows = CompareMetrics(&cr.Predicted, &cr.Measured, opt.Tolerances)
	if runs > 1 {
		for i := range cr.Rows {
			r := &cr.Rows[i]
			r.MeasuredMin, r.MeasuredMax = lo.get(r.Metric), hi.get(r.Metric)
		}
	}
	return cr
}

// summarize sums up runs that succeeded as one: their mean figures (and
// their range), their failures summed, their worst schedule lag, the first
// run's trace, engine log and GPU measure, and what the runs' details
// said (an engine that outlived its stop, which the next start meets).
func summarize(reps []Repeat) (sum Repeat, lo, hi Metrics) {
	first := reps[0]
	sum = Repeat{Status: StatusOK, Trace: first.Trace, EngineLog: first.EngineLog, GPU: first.GPU, FailedByKind: map[string]int{}}
	sum.Measured, lo, hi = meanMetrics(reps)
	var details []string
	for k, r := range reps {
		switch {
		case r.Detail == "":
		case len(reps) == 1:
			details = append(details, r.Detail)
		default:
			details = append(details, fmt.Sprintf("run %d: %s", k+1, r.Detail))
		}
	}
	sum.Detail = strings.Join(details, "; ")
	sum.EnergyUnknown = energyUnknown(reps)
	for _, r := range reps {
		for k, n := range r.FailedByKind {
			sum.FailedByKind[k] += n
		}
		if r.LagP99 != nil && (sum.LagP99 == nil || *r.LagP99 > *sum.LagP99) {
			sum.LagP99 = r.LagP99
		}
		sum.LagFlagged = sum.LagFlagged || r.LagFlagged
	}
	return sum, lo, hi
}

// energyUnknown says why the runs' mean energy is unmeasured (it is when
// one run's is): the first such run's reason, named by its run unless
// every run gives that reason, so that candidates whose runs all met the
// same host (no driver) share one line under the table.
func energyUnknown(reps []Repeat) string {
	for k, r := range reps {
		if r.EnergyUnknown == "" {
			continue
		}
		if len(reps) == 1 || allEnergyUnknown(reps, r.EnergyUnknown) {
			return r.EnergyUnknown
		}
		return fmt.Sprintf("run %d: %s", k+1, r.EnergyUnknown)
	}
	return ""
}

// allEnergyUnknown says whether every run gives why as its reason.
func allEnergyUnknown(reps []Repeat, why string) bool {
	for _, r := range reps {
		if r.EnergyUnknown != why {
			return false
		}
	}
	return true
}

// replayRecord is replay.Record; tests put a replay that never ran in its
// place.
var replayRecord = replay.Record

// measure replays the candidate once at timeScale, on an engine started
// for it when opt has an engine command, into OUT/name.parquet, and stops
// the engine. Its status says what went wrong; Measured holds what was
// measured even then.
func measure(ctx context.Context, opt *Options, cfg *replay.Config, timeScale float64, knobs Knobs, p *plan.Plan, name string, log io.Writer) (rep Repeat) {
	fail := func(status, format string, a ...any) Repeat {
		rep.Status, rep.Detail = status, fmt.Sprintf(format, a...)
		return rep
	}
	// An interrupt that landed after an earlier run finished: starting
	// an engine now would only stop it again.
	if err := ctx.Err(); err != nil {
		return fail(StatusCanceled, "not begun: %v", err)
	}
	var eng *Engine
	if opt.Engine != nil {
		rep.EngineLog = filepath.Join(opt.Out, name+".engine.log")
		var err error
		eng, err = StartEngine(ctx, *opt.Engine, knobs, rep.EngineLog)
		if err != nil {
			var ee *EngineError
			if errors.As(err, &ee) {
				return fail(ee.Status, "%s", ee.Msg)
			}
			return fail(StatusStartFailed, "%v", err)
		}
		defer func() {
			if err := eng.Stop(context.WithoutCancel(ctx)); err != nil {
				fmt.Fprintf(log, "verify: %s: stopping the engine: %v\n", name, err)
				if rep.Detail == "" {
					rep.Detail = "stopping the engine: " + err.Error()
				}
			}
		}()
	}
	// Warm-up, not measured: the text-model probes load the model, then
	// the engine runs the largest shape the replay will ask of it.
	warmupFailed := func(err error) Repeat {
		if ctx.Err() != nil { // interrupted: neither a death nor a failed replay
			return fail(StatusCanceled, "during warm-up: %v", ctx.Err())
		}
		if eng != nil {
			if ok, why := eng.Alive(ctx); !ok {
				return fail(StatusDied, "during warm-up: %s", why)
			}
		}
		return fail(StatusReplay, "warm-up: %v", err)
	}
	tm, err := replay.Calibrate(ctx, probeConfig(*cfg))
	if err != nil {
		return warmupFailed(err)
	}
	if cfg.Text.IsZero() {
		tm.Prefix = cfg.Text.Prefix // given on its own: kept
		cfg.Text = tm               // the first candidate's model, kept: the same prompts for all
		fmt.Fprintf(log, "verify: text model tokens = %.4f × bytes + %.2f\n", tm.TokensPerByte, tm.Overhead)
	}
	if err := warmUp(ctx, *cfg, warmupTokens(knobs, opt.slice), log); err != nil {
		return warmupFailed(err)
	}
	rc := *cfg
	rc.TimeScale = timeScale
	// The simulator stops every output at max_new_tokens: ask for no more.
	rc.MaxTokens = p.Model.MaxNewTokens
	rc.Out = filepath.Join(opt.Out, name+".parquet")
	gpu := startGPU(ctx, opt, filepath.Join(opt.Out, name+".gpu.csv"), log)
	sums, err := replayRecord(ctx, rc, log)
	written, rowsLeft := replay.Outcome(rc, sums)
	// A trace renamed into place whose directory was not synced is
	// written: the run is measured, and Run returns the error after.
	if written && atomicfile.OnlyNotSynced(err) {
		opt.notSynced = append(opt.notSynced, err)
		err = nil
	}
	rep.GPU, rep.EnergyUnknown = gpu.stop(sums, written, rowsLeft)
	// A replay that never ran wrote no trace, nor did one that failed (it
	// keeps its rows under the partial name): name only a trace it wrote,
	// not an earlier run's file of that name.
	if written {
		rep.Trace = rc.Out
	}
	// A replay that returned nil finished every request before the
	// interrupt: it measured the candidate, whose engine is still checked.
	if ctxErr := ctx.Err(); ctxErr != nil && err != nil {
		switch {
		case errors.Is(err, ctxErr):
			// Interrupted: err also says what failed as it closed, and
			// where the rows stay.
			return fail(StatusCanceled, "%v", err)
		default:
			// Failed before the interrupt (a write error): its error
			// names the partial file that keeps the rows written.
			return fail(StatusReplay, "%v", err)
		}
	}
	if eng != nil {
		if ok, why := eng.Alive(context.WithoutCancel(ctx)); !ok {
			rep.measured(sums, p)
			return fail(StatusDied, "%s", why)
		}
	}
	if err != nil {
		return fail(StatusReplay, "%v", err)
	}
	if len(sums) == 0 {
		return fail(StatusReplay, "the replay returned no run")
	}
	rep.measured(sums, p)
	if g := rep.GPU; g != nil && g.JPerOutputTok != nil && *g.JPerOutputTok <= 0 {
		rep.EnergyUnknown = "NVML measured no energy over the window"
	}
	if g := rep.GPU; g != nil && g.JPerOutputTok != nil && *g.JPerOutputTok > 0 {
		// NVML samples every device of the host; the simulator's energy
		// is the plan's devices'. A GPU idle through the window is not
		// the engine's: its idle power would pass for the candidate's.
		switch {
		case g.IdleGPUs != "":
			rep.EnergyUnknown = "a sampled GPU sat idle through the window: " + cmp.Or(g.idleDevices, g.IdleGPUs) +
				" (probably not one the engine ran on; select the engine's GPUs by NVML index or UUID)"
			fmt.Fprintf(log, "verify: %s: %s: energy per output token is not compared\n", name, rep.EnergyUnknown)
		case g.Devices == p.Device.Count:
			j := *g.JPerOutputTok
			rep.Measured.JPerOutTok = &j
			rep.Measured.USDPerMOut = estCost(p.Prices(), p.Device.Count, sums[0].Wall.Seconds(), *g.EnergyJ, sums[0].OutputTokens)
		default:
			rep.EnergyUnknown = fmt.Sprintf("NVML sampled %d devices, the plan holds %d", g.Devices, p.Device.Count)
			fmt.Fprintf(log, "verify: %s: %s: energy per output token is not compared\n", name, rep.EnergyUnknown)
		}
	}
	if s := sums[0]; s.Succeeded == 0 {
		// Not a death: the engine (when verify started it) still answers
		// its health URL, or verify watched no engine; the requests failed.
		return fail(StatusReplay, "no request succeeded (%s)", failedKinds(s.FailedByKind))
	}
	rep.Status = StatusOK
	return rep
}

// measured fills the measured metrics from the replay summary.
func (rep *Repeat) measured(sums []*replay.Summary, p *plan.Plan) {
	if len(sums) == 0 {
		return
	}
	s := sums[0]
	m := &rep.Measured
	m.Requests, m.Completed, m.OutputTokens = int64(s.Sent), int64(s.Succeeded), s.OutputTokens
	rep.FailedByKind = s.FailedByKind
	if s.Lag.N > 0 {
		rep.LagP99 = sec(s.Lag.P99.Seconds())
	}
	rep.LagFlagged = s.LagFlagged
	if s.Succeeded == 0 || s.Wall <= 0 {
		return
	}
	m.ReqPerSec, m.OutTokPerSec = sec(s.RequestsPerSec), sec(s.OutputTokensPerSec)
	if s.TTFT.N > 0 {
		m.TTFTMean, m.TTFTP50, m.TTFTP99 = sec(s.TTFT.Mean.Seconds()), sec(s.TTFT.P50.Seconds()), sec(s.TTFT.P99.Seconds())
	}
	if s.TPOT.N > 0 {
		// replay keeps TPOT in ns per token, as a Duration
		m.TPOTMean, m.TPOTP99 = sec(s.TPOT.Mean.Seconds()), sec(s.TPOT.P99.Seconds())
	}
	if s.E2E.N > 0 {
		m.E2EP99 = sec(s.E2E.P99.Seconds())
	}
	ds := float64(p.Device.Count) * s.Wall.Seconds()
	m.DeviceSeconds = sec(ds)
	// Hardware alone until measure adds the energy NVML measured.
	m.USDPerMOutHardware = hwCost(ds, p.Cost.USDPerHour, s.OutputTokens)
	m.USDPerMOut = m.USDPerMOutHardware
}

// estCost is the sweep's estimated cost per million output tokens:
// device-seconds × $/h + energy × $/kWh × PUE.
func estCost(prices model.Prices, devices int, wallSeconds, energyJ float64, outTokens int64) *float64 {
	return sec(prices.Cost(model.Usage{Devices: devices, WallSeconds: wallSeconds, EnergyJoules: energyJ, OutputTokens: outTokens}).PerMOutputUSD)
}

// hwCost is device-seconds × $/h per million output tokens.
func hwCost(deviceSeconds, usdPerHour float64, outTokens int64) *float64 {
	if outTokens <= 0 {
		return nil
	}
	return sec(deviceSeconds / 3600 * usdPerHour / float64(outTokens) * 1e6)
}

func sec(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// simulate runs the slice src.input at timeScale through r and returns the
// metrics comparable with a live run's.
// Its error wraps atomicfile.ErrDirNotSynced, with the
// metrics, when the trace was renamed into place but its directory not
// synced.
func simulate(ctx context.Context, r *plan.Resolved, outDir, simPath, name string, timeScale float64, step sim.StepTimer, stepDesc string, src simSource) (*Metrics, string, error) {
	in, err := traces.Open(src.input)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	scaled, err := traces.Scale(in, timeScale)
	if err != nil {
		return nil, "", err
	}
	meta := r.ResultMeta(scaled.Meta(), stepDesc, src.toolVersion, src.profile, src.profileSHA256, src.catalogSHA256)
	// The slice named as the measured trace names it (replay.Record): by
	// its source's checksums and workload when it records them, else by
	// its own checksum beside them. The two ran one workload.
	if !traces.IsConversion(in.Meta()) {
		meta.SetChecksum(filepath.Base(src.input), traces.SHA256Checksum(src.inputSHA256))
	}
	plan.SetArrivalMeta(&meta, nil, src.wait) // as simulate --session-wait records it
	w, err := traces.Create(simPath, meta)
	if err != nil {
		return nil, "", err
	}
	po := plan.Options{StepModel: stepDesc}
	po.Power, po.PowerModel = PowerModel(src.prof, src.profile)
	if step != nil {
		po.Step = step
	}
	res, err := r.SimulateArrivals(ctx, name, nil, src.wait, scaled, w, po)
	if err == nil {
		err = scaled.Err()
	}
	if err != nil {
		w.Abort()
		return nil, "", err
	}
	// A trace renamed into place whose directory was not synced is
	// written: its metrics are returned with the error.
	closeErr := w.Close()
	if closeErr != nil && !atomicfile.OnlyNotSynced(closeErr) {
		return nil, "", closeErr
	}
	s := res.Summary
	m := &Metrics{Requests: s.Requests, Completed: s.Completed, OutputTokens: s.OutputTokens}
	switch {
	case s.Completed == 0:
		// A prediction that nothing completes is a throughput of 0, not a
		// figure left unpredicted: against a measured run that served the
		// requests it is a miss, which a nil would let pass ungated.
		m.ReqPerSec, m.OutTokPerSec = sec(0), sec(0)
	case s.Makespan > 0:
		m.ReqPerSec, m.OutTokPerSec = sec(s.ReqPerSec), sec(s.OutputTokPerSec)
		m.DeviceSeconds = sec(s.DeviceSeconds)
		m.USDPerMOutHardware = hwCost(s.DeviceSeconds, r.Plan.Cost.USDPerHour, s.OutputTokens)
		m.USDPerMOut = estCost(r.Prices, r.Plan.Devices(), s.Makespan, s.EnergyJoules, s.OutputTokens)
	}
	if s.TTFT.N > 0 {
		m.TTFTMean, m.TTFTP50, m.TTFTP99 = sec(s.TTFT.Mean), sec(s.TTFT.P50), sec(s.TTFT.P99)
	}
	if s.TPOT.N > 0 {
		m.TPOTMean, m.TPOTP99 = sec(s.TPOT.Mean), sec(s.TPOT.P99)
	}
	if s.E2E.N > 0 {
		m.E2EP99 = sec(s.E2E.P99)
	}
	if s.OutputTokens > 0 && s.EnergyJoules > 0 {
		m.JPerOutTok = sec(s.EnergyJoules / float64(s.OutputTokens))
	}
	return m, res.Outcome, closeErr
}

// writeSlice writes the slice of trace, but for rows failed in the source,
// to out and returns what its requests hold (their count among it). The
// slice is the source's rows as `trace import --drop-failed` (when a row
// failed) and `trace slice` make them, and its metadata says so: a run
// on it names the source's checksums and those transformations
// (traces.Workload), as a run on the source would be named.
func writeSlice(ctx context.Context, trace, out string, s Slice) (sliceTokens, error) {
	// A row failed in the source has no length to serve: the simulator
	// rejects it under every plan and a replay does not send it. The
	// slice leaves such rows out, so neither side counts them, and Import
	// records that it did only when it did.
	in, err := traces.Import(trace, traces.FormatAuto, traces.ImportOptions{DropFailed: true})
	if err != nil {
		return sliceTokens{}, err
	}
	defer in.Close()
	var r traces.Reader = in
	if s.Head > 0 || s.From > 0 || s.To > 0 {
		r = traces.Slice(in, int64(s.From), int64(s.To), s.Head)
	}
	// An empty slice is refused before it is written: left in the
	// output directory, it would pass for the input of a run.
	z := &sizing{Reader: r, empty: fmt.Errorf("the slice %s of %s holds no requests (warm-up rows aside)", s, trace)}
	_, err = traces.WriteTrace(ctx, out, z)
	return z.sliceTokens, err
}

// StepModel turns a profile into the simulator's step model (nil profile:
// nil, the roofline prior) and describes it.
func StepModel(p *calibrate.Profile, path string) (sim.StepTimer, string, error) {
	if p == nil {
		return nil, "roofline prior (uncalibrated)", nil
	}
	st := p.Step
	lin := sim.Linear{C0: st.C0.Value, Cp: st.Cp.Value, Ca: st.Ca.Value, Cd: st.Cd.Value, Ck: st.Ck.Value,
		Crp: st.Crp.Value, Crd: st.Crd.Value, Cr: st.Cr.Value, Cq: st.Cq.Value, Dense: st.Curve()}
	admit := ""
	if a := p.Admission; a != nil {
		lin.Admit = sim.Admission{Delay: a.Delay}
		admit = fmt.Sprintf(", admission %.1f ms", a.Delay*1e3)
		if a.Lock {
			// The static policies run no step loop's lock: delay_s is theirs.
			lin.Admit = sim.Admission{Delay: a.Latency, Lock: true, UnlockedDelay: a.Delay}
			admit = fmt.Sprintf(", admission under the step loop's lock after %.1f ms, %.1f ms for the static policies", a.Latency*1e3, a.Delay*1e3)
		}
	}
	if err := lin.Validate(); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	// A profile that fitted no step (its coefficients a prior, e.g. from
	// Vidur's operator profiles) has no R²: 0 would read as a useless fit.
	if p.Quality.N == 0 {
		return lin, fmt.Sprintf("profile %s (not fitted: prior coefficients%s)", path, admit), nil
	}
	held := "n/a"
	if h := p.Quality.HeldOutMdAPE; h != nil {
		held = fmt.Sprintf("%.1f%%", 100**h)
	}
	return lin, fmt.Sprintf("profile %s (R² %.3f, held-out MdAPE %s%s)", path, p.Quality.R2, held, admit), nil
}

// PowerModel is profile p's fitted power model (read from path), watts per
// device, and its description; nil when p has no power fit, or names no
// device for it to describe, and the catalog's figures price the energy.
// A profile of another device than the plan's is refused before this.
func PowerModel(p *calibrate.Profile, path string) (func(float64) float64, string) {
	if p == nil || p.Power == nil || p.Device == "" {
		return nil, ""
	}
	pw := *p.Power
	return pw.PowerWatts, fmt.Sprintf("profile %s fit on %s: %.4g W idle + %.4g W × utilization per device (R² %.3f, n=%d)",
		path, p.Device, pw.Idle.Value, pw.Dynamic.Value, pw.Quality.R2, pw.Quality.N)
}

// CatalogPower describes the power model of a prediction without a
// profile's power fit.
const CatalogPower = "catalog: idle + (TDP − idle) × utilization of each device"

// ProfileKV is the KV capacity profile p (read from path) measured or
// its engine reported, for
// plan.ResolveMeasured, as `simulate --profile` uses it; nil when it
// measured none.
func ProfileKV(p *calibrate.Profile, path string) *plan.MeasuredKV {
	if p == nil || (p.KV == nil || p.KV.MaxConcurrentTokens <= 0) && p.KVReported == nil {
		return nil
	}
	kv := &plan.MeasuredKV{Source: "profile " + path, BlockSize: p.BlockSize, Devices: p.TensorParallel}
	if p.KV != nil {
		kv.Tokens, kv.Blocks = p.KV.MaxConcurrentTokens, p.KV.Blocks
	}
	if r := p.KVReported; r != nil {
		kv.Reported = &plan.ReportedKV{Tokens: r.Tokens, Blocks: r.Blocks, BlockSize: r.BlockSize, GPUMemoryUtilization: r.GPUMemoryUtilization}
	}
	return kv
}

// KnobsOf are the template fields of a candidate's plan.
func KnobsOf(p *plan.Plan, c sweep.Candidate, host, port string) Knobs {
	b, d := p.Batch, p.Device
	return Knobs{
		Rank: c.Rank, Label: c.Label, Strategy: b.Strategy, MaxNumSeqs: b.MaxNumSeqs,
		MaxNumBatchedTokens: b.MaxNumBatchedTokens, ChunkedPrefill: b.ChunkedPrefill, PrefixCaching: b.PrefixCaching,
		BatchSize: b.BatchSize, MaxTokenBudget: b.MaxTokenBudget, MaxWaitMS: b.MaxWaitMS,
		GPUMemoryUtilization: d.GPUMemoryUtilization, MaxModelLen: d.MaxModelLen, BlockSize: d.BlockSize,
		TensorParallel: d.Count, Device: d.Model, MaxNewTokens: p.Model.MaxNewTokens, Host: host, Port: port,
	}
}

// hostPort is the host and port of an http(s) URL (port defaulted by
// scheme).
func hostPort(raw string) (string, string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Hostname(), port
}
