package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/jsonfile"
	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/internal/relpath"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

// Exit codes of verify.
const (
	exitToleranceFailed = 4 // a metric was outside its tolerance
	exitIncomplete      = 5 // every measured metric passed, but some candidate could not be measured
	exitRefitFailed     = 6 // --refit was asked for and failed: no refitted profile to go on with
)

func verifyCommand() *cli.Command {
	tol := verify.DefaultTolerances()
	return &cli.Command{
		Name:      "verify",
		Usage:     "replay the best configs of a sweep live and compare the simulator's predictions with the measurements",
		UsageText: "servesim verify --candidates candidates.json --trace T --base-url URL --model M [--engine-cmd TEMPLATE] [options]",
		Description: "For each candidate (simulate --sweep --top N writes candidates.json): (re)start the engine with the\n" +
			"candidate's knobs (--engine-cmd, a Go text/template over {{.MaxNumSeqs}} {{.MaxNumBatchedTokens}}\n" +
			"{{.GPUMemoryUtilization}} {{.MaxModelLen}} {{.BlockSize}} {{.Port}} {{.Host}} {{.TensorParallel}}…, run\n" +
			"with sh -c in its own process group), wait for --health-url, replay the trace slice open loop at the\n" +
			"candidate's rate (time scale 1/rate_scale, temperature 0, generated text kept), stop the engine\n" +
			"(--stop-cmd, then the process group), and re-simulate the same slice with the candidate's plan and\n" +
			"--profile. Prints predicted vs measured per metric with pass/fail, the ranking by measured cost\n" +
			"(Kendall τ against the simulator's), and how many outputs differ across candidates; writes\n" +
			"OUT/verify.json and per candidate OUT/rankNN.parquet (measured), rankNN.sim.parquet, rankNN.engine.log\n" +
			"(with --repeat N: rankNN.runK.parquet and rankNN.runK.engine.log for each run K).\n" +
			"Exit status 4: a metric outside its tolerance; 5: some candidate could not be measured (engine failed);\n" +
			"6: --refit failed (it comes before 4 and 5; verify.json's refit.error says why).",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "candidates", Usage: "candidates.json from 'simulate --sweep --top N', or the sweep's results (sweep.parquet): its ranked configs"},
			&cli.IntFlag{Name: "top", Usage: "verify only the N best candidates (0 = all in the file)"},
			&cli.StringFlag{Name: "trace", Usage: "the trace to replay (any format servesim reads)"},
			&cli.StringFlag{Name: "slice", Usage: "replay part of the trace: N (the first N requests) or FROM:TO (a time window, e.g. 0s:60s; TO may be empty); all (the default) is the whole trace"},
			&cli.StringFlag{Name: "base-url", Usage: "API root, e.g. http://127.0.0.1:8000/v1"},
			&cli.StringFlag{Name: "model", Usage: "model name sent in requests"},
			&cli.StringFlag{Name: "engine-cmd", Usage: "engine start command template, e.g. 'OLLAMA_NUM_PARALLEL={{.MaxNumSeqs}} exec ollama serve' (default: use the running engine, knobs not applied)"},
			&cli.StringFlag{Name: "stop-cmd", Usage: "engine stop command template (default: signal the start command's process group)"},
			&cli.StringFlag{Name: "health-url", Usage: "polled with GET until 200 after each start (default: BASE-URL/models, sent the API key as the replay sends it; a URL given here gets no key)"},
			&cli.DurationFlag{Name: "health-timeout", Value: 60 * time.Second, Usage: "how long to wait for health"},
			&cli.StringFlag{Name: "profile", Usage: "calibrated profile for the re-simulation (default: the roofline prior); candidates must run on the profile's device"},
			&cli.StringFlag{Name: "catalog", Usage: "TOML file adding or overriding model/hardware catalog entries"},
			&cli.StringFlag{Name: "out", Value: "verify-out", Usage: "output directory"},
			&cli.Float64Flag{Name: "tol-throughput", Value: tol.Throughput, Usage: "tolerance on output throughput, a fraction (0 = reported, not gated)"},
			&cli.Float64Flag{Name: "tol-ttft", Value: tol.TTFT, Usage: "tolerance on mean and P50 TTFT (0 = reported, not gated)"},
			&cli.Float64Flag{Name: "tol-tpot", Value: tol.TPOT, Usage: "tolerance on mean TPOT (0 = reported, not gated)"},
			&cli.Float64Flag{Name: "tol-p99", Value: tol.P99, Usage: "tolerance on P99 TTFT, TPOT and E2E (0 = reported, not gated)"},
			&cli.Float64Flag{Name: "tol-cost", Value: tol.Cost, Usage: "tolerance on device-seconds and $/1M output tokens (0 = reported, not gated)"},
			&cli.BoolFlag{Name: "refit", Usage: "fold the verification runs into the profile and save it (needs --profile); also report each run's step bias and the errors re-simulated with the refit (OUT/rankNN.refit.sim.parquet) and at each engine's measured decode speed (rankNN.speed.sim.parquet)"},
			&cli.StringFlag{Name: "refit-out", Usage: "with --refit: the new profile (default: PROFILE without .json + .refit.json)"},
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "measure each candidate N times (at most 1000), each on a freshly started engine: compare the prediction with the mean and show the runs' range"},
			&cli.BoolFlag{Name: "session-wait", Usage: "hold a row with a session_id until the previous row of its session has ended, in the live replay (as record --session-wait) and in the prediction (as simulate --session-wait)"},
			&cli.DurationFlag{Name: "session-wait-gap", Value: time.Millisecond, Usage: "with --session-wait: the prediction's held turn reaches the engine this long after its previous turn ends (a live client's turnaround, as simulate's --closed-loop-gap); at most 1m"},
			&cli.Uint64Flag{Name: "prompt-salt", DefaultText: "random", Usage: "seed mixed into prompt text, the same for every candidate; 0 draws one at random, as no flag does"},
			&cli.BoolFlag{Name: "json", Usage: "print verify.json instead of the table (its paths from the current directory)"},
			&cli.BoolFlag{Name: "gpu", Usage: "sample local NVIDIA GPUs through NVML during each replay (OUT/rankNN.gpu.csv): measured energy per output token"},
			&cli.DurationFlag{Name: "gpu-interval", Value: 250 * time.Millisecond, Usage: "NVML sampling interval with --gpu"},
			&cli.StringFlag{Name: "gpu-devices", Usage: "with --gpu: the GPUs the engine runs on, as NVML indices or UUIDs, comma-separated (default: every GPU of the host; energy is compared only when their count is the plan's)"},
		}, clientFlags(5*time.Minute)...),
		Action: runVerify,
	}
}

// verifyFlags names the flags behind verify.Options' fields: the replay
// settings and the tolerances.
var verifyFlags = func() map[string]string {
	m := map[string]string{"Throughput": "--tol-throughput", "TTFT": "--tol-ttft", "TPOT": "--tol-tpot",
		"P99": "--tol-p99", "Cost": "--tol-cost"}
	for field, flag := range replayFlags {
		m[field] = flag
	}
	return m
}()

func runVerify(c *cli.Context) error {
	if c.NArg() > 0 {
		return cli.Exit(fmt.Sprintf("verify: unexpected argument %q", c.Args().First()), 2)
	}
	if err := requireFlags(c, "candidates", "trace", "base-url", "model"); err != nil {
		return err
	}
	// Every setting is checked before any candidate is simulated or
	// replayed; a bad one is a usage error (exit status 2).
	if n := c.Int("top"); n < 0 {
		return cli.Exit(fmt.Sprintf("verify: --top %d: want ≥ 0 (0 = all)", n), 2)
	}
	if n := c.Int("repeat"); n < 1 || n > replay.MaxRepeat {
		return cli.Exit(fmt.Sprintf("verify: --repeat %d: want 1 to %d", n, replay.MaxRepeat), 2)
	}
	if d := c.Duration("health-timeout"); d <= 0 {
		return cli.Exit(fmt.Sprintf("verify: --health-timeout %v: want > 0", d), 2)
	}
	wait, err := sessionWaitFlags(c)
	if err != nil {
		return err
	}
	slice, err := parseSlice(c.String("slice"))
	if err != nil {
		return cli.Exit(err, 2)
	}
	cfg := replay.DefaultConfig()
	cfg.ToolVersion = c.App.Version
	cfg.BaseURL, cfg.Model = c.String("base-url"), c.String("model")
	cfg.Timeout = c.Duration("timeout")
	cfg.Salt = c.Uint64("prompt-salt")
	if err := applyClientFlags(c, &cfg); err != nil {
		return err
	}
	opt := verify.Options{
		Trace: c.String("trace"), Slice: slice, Replay: cfg, Out: c.String("out"),
		Tolerances: verify.Tolerances{Throughput: c.Float64("tol-throughput"), TTFT: c.Float64("tol-ttft"),
			TPOT: c.Float64("tol-tpot"), P99: c.Float64("tol-p99"), Cost: c.Float64("tol-cost")},
		Catalog: model.DefaultCatalog(), Log: c.App.ErrWriter, Repeat: c.Int("repeat"), SessionWait: wait,
	}
	if err := opt.Validate(); err != nil {
		return cli.Exit(flagErrors("verify", verifyFlags, err), 2)
	}
	// Before any engine starts: health checks send the key too, and would
	// only time out.
	if err := replay.CheckAPIKey(cfg.APIKeyEnv); err != nil {
		return cli.Exit(err, 2)
	}
	if c.Bool("gpu") {
		if c.Duration("gpu-interval") <= 0 {
			return cli.Exit(fmt.Sprintf("verify: --gpu-interval %v: want > 0", c.Duration("gpu-interval")), 2)
		}
		opt.GPUInterval = c.Duration("gpu-interval")
		if c.IsSet("gpu-devices") {
			sel, err := telemetry.ParseDeviceSelection(c.String("gpu-devices"))
			if err != nil {
				return cli.Exit(fmt.Sprintf("verify: --gpu-devices: %v", err), 2)
			}
			opt.GPUDevices = sel
		}
	} else {
		for _, f := range []string{"gpu-interval", "gpu-devices"} {
			if c.IsSet(f) {
				return cli.Exit(fmt.Sprintf("verify: --%s needs --gpu", f), 2)
			}
		}
	}
	if err := checkInputs("verify", wantFile, namedPath{"--candidates", c.String("candidates")}, namedPath{"--trace", c.String("trace")},
		namedPath{"--profile", c.String("profile")}, namedPath{"--catalog", c.String("catalog")}); err != nil {
		return err
	}
	if err := checkTraceExtension("verify", namedPath{"--trace", c.String("trace")}); err != nil {
		return err
	}
	cf, err := readCandidates(c.String("candidates"))
	if err != nil {
		return err
	}
	if n := c.Int("top"); n > 0 && len(cf.Candidates) > n {
		cf.Candidates = cf.Candidates[:n]
	}
	opt.Candidates = cf
	if err := checkSweepTrace(cf, c.String("candidates"), opt.Trace); err != nil {
		return err
	}
	if w := sweepSessionWaitWarning(cf, c.String("candidates"), wait); w != "" {
		fmt.Fprintln(c.App.ErrWriter, "warning: "+w)
	}
	if p := c.String("catalog"); p != "" {
		if err := opt.Catalog.LoadTOML(p); err != nil {
			return err
		}
		if opt.CatalogSHA256, err = calibrate.FileSHA256(p); err != nil {
			return err
		}
	}
	prof, err := loadProfileFlag(c)
	if err != nil {
		return err
	}
	if prof != nil {
		opt.Profile, opt.ProfilePath = prof.prof, prof.path
	}
	if start := c.String("engine-cmd"); start != "" {
		health, keyEnv := c.String("health-url"), ""
		if health == "" {
			// The engine's own API: it takes the key the replay sends. A
			// --health-url may be another server, which gets no key.
			health, keyEnv = modelsURL(cfg.BaseURL), cfg.APIKeyEnv
		}
		opt.Engine = &verify.EngineSpec{Start: start, Stop: c.String("stop-cmd"), HealthURL: health, HealthKeyEnv: keyEnv, KeyEnv: cfg.APIKeyEnv,
			BaseURL: cfg.BaseURL, HealthTimeout: c.Duration("health-timeout")}
		for name, t := range map[string]string{"engine-cmd": start, "stop-cmd": opt.Engine.Stop} {
			if _, err := verify.ParseTemplate(name, t); err != nil {
				// The error quotes the action that failed, a key in it too.
				return cli.Exit(opt.Engine.Masked(err.Error()), 2)
			}
		}
	} else if c.IsSet("stop-cmd") || c.IsSet("health-url") || c.IsSet("health-timeout") {
		return cli.Exit("verify: --stop-cmd, --health-url and --health-timeout need --engine-cmd", 2)
	}
	if c.Bool("refit") {
		if opt.Profile == nil {
			return cli.Exit("verify: --refit needs --profile", 2)
		}
		out := c.String("refit-out")
		if out == "" {
			// Only .json is cut, as for calibrate's --trace-out: profiles
			// that differ past another dot (p.v1, p.v2) would otherwise
			// refit into, and replace, one file.
			out = strings.TrimSuffix(opt.ProfilePath, ".json") + ".refit.json"
		}
		if err := atomicfile.CheckFile(out); err != nil { // not only once every candidate has run
			return usageErrorf("verify: --refit-out: %v", err)
		}
		opt.Refit = &verify.RefitOptions{Out: out}
	} else if c.IsSet("refit-out") {
		return cli.Exit("verify: --refit-out needs --refit", 2)
	}
	// The files verify writes: none may be an input (a refit over its own
	// parent profile, the slice over the trace it is cut from, a
	// candidate's run over an earlier verify's run that the profile, a
	// refit, cites).
	outs := []namedPath{{"--out", filepath.Join(opt.Out, "verify.json")}}
	for _, p := range opt.Outputs() {
		outs = append(outs, namedPath{"--out", p})
	}
	if opt.Refit != nil {
		// The --out directory too: verify makes it before any run, so a
		// refit saved at its path would fail only after every candidate.
		outs = append(outs, namedPath{"--out", opt.Out}, namedPath{"--refit-out", opt.Refit.Out})
	}
	ins := []namedPath{{"--trace", opt.Trace}, {"--candidates", c.String("candidates")}, {"--profile", opt.ProfilePath}, {"--catalog", c.String("catalog")}}
	if opt.Profile != nil {
		// Named from the profile's directory, as a refit finds them.
		for _, ref := range opt.Profile.Traces {
			ins = append(ins, namedPath{"--profile's trace", relpath.Resolve(filepath.Dir(opt.ProfilePath), ref.Path)})
		}
	}
	if err := checkOutputs("verify", outs, ins); err != nil {
		return cli.Exit(err, 2)
	}
	if err := checkOutDir("verify", opt.Out); err != nil {
		return err
	}
	// As simulate --profile: step times of one device say nothing about
	// another's, and a precision or model the profile was not measured
	// at is warned of. A plan that does not parse, Run records.
	var plans []*plan.Plan
	for _, cand := range cf.Candidates {
		p, err := plan.Parse([]byte(cand.Plan))
		if err != nil {
			continue
		}
		plans = append(plans, p)
		if err := prof.fits(p, fmt.Sprintf("candidate #%d (%s) of %s", cand.Rank, cand.Label, c.String("candidates"))); err != nil {
			return err
		}
		if prof != nil {
			prof.warnMismatch("verify", p, c.App.ErrWriter)
		}
	}
	if prof.measuresContext() {
		longest, err := sliceLongestContext(opt.Trace, opt.Slice, planContextLimits(plans))
		if err != nil {
			return fmt.Errorf("verify: --trace: %w", err)
		}
		prof.warnContext("verify", longest, c.App.ErrWriter)
	}

	res, runErr := verify.Run(c.Context, opt)
	if res == nil {
		return fmt.Errorf("verify: %w", runErr)
	}
	// The file names its files from its own directory, so that it reads
	// back (report --verify) from anywhere; --json prints them from here.
	// Every candidate has run: the results are printed even when
	// verify.json could not be written (they would be seen nowhere else),
	// and the error comes after. A verify.json renamed into place whose
	// directory was not synced is written, and where it went is printed.
	resultPath := filepath.Join(opt.Out, "verify.json")
	written := true
	if err := writeJSONAtomic(resultPath, res.RelativeTo(opt.Out)); err != nil {
		written = atomicfile.OnlyNotSynced(err)
		runErr = errors.Join(runErr, err)
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("--json: %w", err))
		}
	} else {
		fmt.Fprintf(c.App.Writer, "verify: %s, %s each (%s); predicted with %s\n", numfmt.Count(len(res.Candidates), "candidate"), numfmt.Count(res.Requests, "request"), res.Input, res.StepModel)
		res.WriteTable(c.App.Writer)
		if written {
			fmt.Fprintf(c.App.Writer, "wrote %s\n", resultPath)
		}
	}
	if runErr != nil && !atomicfile.OnlyNotSynced(runErr) {
		return fmt.Errorf("verify: %w%s", runErr, toleranceNote(res))
	}
	return withNotSynced(verifyOutcome(res), runErr)
}

// sessionWaitFlags is the session waiting --session-wait and
// --session-wait-gap ask for; nil without --session-wait.
func sessionWaitFlags(c *cli.Context) (*sim.SessionWait, error) {
	if !c.Bool("session-wait") {
		if c.IsSet("session-wait-gap") {
			return nil, usageErrorf("verify: --session-wait-gap needs --session-wait")
		}
		return nil, nil
	}
	g, err := issueGapFlag(c, "verify", "session-wait-gap")
	if err != nil {
		return nil, err
	}
	return &sim.SessionWait{IssueGap: g}, nil
}

// withNotSynced is a completed verify's exit outcome with notSynced, the
// outputs written whose directory was not synced, named in it: the exit
// status stays the outcome's (4, 5 or 6), which says what the runs found;
// with no such outcome, the sync error alone exits 1, as any command's.
func withNotSynced(outcome, notSynced error) error {
	if notSynced == nil {
		return outcome
	}
	var ec cli.ExitCoder
	if !errors.As(outcome, &ec) {
		return fmt.Errorf("verify: %w", notSynced)
	}
	return cli.Exit(fmt.Errorf("%w; %w", outcome, notSynced), ec.ExitCode())
}

// verifyOutcome is the exit a completed verify ends with: a failed
// refit, metrics outside tolerance, or candidates not measured, in that
// order; nil when none. Its message names the later ones too, which its
// status does not say.
func verifyOutcome(res *verify.Result) error {
	switch {
	case res.Refit != nil && res.Refit.Error != "":
		return cli.Exit("verify: --refit failed: "+res.Refit.Error+toleranceNote(res)+incompleteNote(res), exitRefitFailed)
	case res.ToleranceFailures > 0:
		return cli.Exit("verify: "+numfmt.Count(res.ToleranceFailures, "metric")+" outside tolerance"+incompleteNote(res), exitToleranceFailed)
	case res.Incomplete > 0:
		return cli.Exit("verify: "+numfmt.Count(res.Incomplete, "candidate")+" could not be measured", exitIncomplete)
	}
	return nil
}

// toleranceNote is "" or, when metrics fell outside tolerance, a clause
// counting them for an exit message that is not about them: the table
// leaves the count to the message.
func toleranceNote(res *verify.Result) string {
	if res.ToleranceFailures == 0 {
		return ""
	}
	return "; " + numfmt.Count(res.ToleranceFailures, "metric") + " outside tolerance"
}

// incompleteNote is "" or, when candidates could not be measured, a
// clause counting them for an exit message that is not about them.
func incompleteNote(res *verify.Result) string {
	if res.Incomplete == 0 {
		return ""
	}
	return "; " + numfmt.Count(res.Incomplete, "candidate") + " could not be measured"
}

// readCandidates reads a candidates.json (see parseCandidates) or, for a
// .parquet file, a sweep's results, whose ranked configs are the
// candidates in rank order, as candidates.json would hold them.
func readCandidates(path string) (*sweep.CandidateFile, error) {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		res, err := sweep.ReadFile(path)
		if err != nil {
			return nil, err
		}
		// A shard ranks its own configs only: its rank 1 need not be the
		// sweep's best (simulate refuses --top for a shard likewise).
		if sh := res.Meta.Shard; sh.Count > 1 {
			return nil, fmt.Errorf("%s: shard %s of a sweep, ranked within the shard: merge the shards first ('servesim sweep merge OUT.parquet SHARD...') and give the merged file", path, sh)
		}
		cf := sweep.Candidates(res, 0)
		if len(cf.Candidates) == 0 {
			return nil, fmt.Errorf("%s: no ranked configs (did any config meet the SLO?)", path)
		}
		// As in a candidates.json: each rank names its candidate's outputs.
		if err := checkCandidates(cf, path, parquetPrefixCachingFix, func(c sweep.Candidate, _ int, field string) string {
			if field == "" {
				return fmt.Sprintf("the config of index %d", c.Index)
			}
			return fmt.Sprintf("the config of index %d: its %s", c.Index, field)
		}); err != nil {
			return nil, err
		}
		return cf, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseCandidates(data, path)
}

// checkSweepTrace refuses a trace other than the one the candidates'
// sweep simulated (by the sha256 sweep.LoadTrace takes over the requests
// it reads): their ranks and predictions are over that trace's requests
// and their rate scales multiply its arrival rate, so on another trace
// verify would measure loads the sweep never ranked: another trace is a
// usage error, one that does not read fails as any bad trace does. A
// candidates file written before the trace's sha256 was recorded is not
// checked.
func checkSweepTrace(cf *sweep.CandidateFile, candidates, trace string) error {
	if cf.TraceSHA256 == "" {
		return nil
	}
	in, err := openTrace(trace)
	if err != nil {
		return fmt.Errorf("verify: --trace: %w", err)
	}
	tr, err := sweep.LoadTrace(filepath.Base(trace), in)
	in.Close()
	if err != nil {
		return fmt.Errorf("verify: --trace %s is not the trace %s ranks configs on (%s, sha256 %.12s…): %w",
			trace, candidates, cf.TraceName, cf.TraceSHA256, err)
	}
	if tr.SHA256 != cf.TraceSHA256 { // inputs that do not belong together: a usage error
		return usageErrorf("verify: --trace %s (requests sha256 %.12s…) is not the trace %s ranks configs on (%s, sha256 %.12s…): "+
			"give the sweep's trace (--slice cuts a part of it)", trace, tr.SHA256, candidates, cf.TraceName, cf.TraceSHA256)
	}
	return nil
}

// sweepSessionWaitWarning says why candidates swept with sessions' turns
// held (session_wait=GAP in their settings) are measured under another
// workload than ranked them when verify holds turns otherwise, or at
// another turnaround; "" when they agree. A file without the setting was
// swept with every turn at its arrival, as every sweep was before it.
func sweepSessionWaitWarning(cf *sweep.CandidateFile, candidates string, wait *sim.SessionWait) string {
	swept := ""
	for _, f := range strings.Fields(cf.Settings) {
		if v, ok := strings.CutPrefix(f, "session_wait="); ok {
			swept = v
		}
	}
	switch {
	case swept != "" && wait == nil:
		return fmt.Sprintf("%s was swept with sessions' turns held (session_wait=%s); verify without --session-wait predicts and measures every turn at its arrival, so the ranking may not carry over: add --session-wait", candidates, swept)
	case swept == "" && wait != nil:
		return fmt.Sprintf("%s was swept with every turn at its arrival; verify --session-wait holds turns, so the ranking may not carry over: sweep with --session-wait", candidates)
	case wait != nil && swept != wait.IssueGap.String():
		return fmt.Sprintf("%s was swept with held turns' turnaround %s; --session-wait-gap %v predicts with another", candidates, swept, wait.IssueGap)
	}
	return ""
}

// parseCandidates decodes a candidates.json strictly (one JSON object, no
// unknown fields) and checks what Run relies on: at least one candidate,
// each with a unique rank ≥ 1 (its outputs are named rankNN), an
// index ≥ 0 and a usable rate scale; it returns them by rank. name (the
// file) starts every error. A candidate whose plan is unusable is not
// refused here: Run records it as not measured and verifies the others;
// a plan stored before batch.prefix_caching was required is (see
// checkCandidates).
func parseCandidates(data []byte, name string) (*sweep.CandidateFile, error) {
	var cf sweep.CandidateFile
	if err := jsonfile.DecodeStrict(data, &cf, "a JSON object"); err != nil {
		return nil, fmt.Errorf("%s: not a candidates.json (simulate --sweep --top N): %w", name, err)
	}
	if len(cf.Candidates) == 0 {
		return nil, fmt.Errorf("%s: no candidates (did any config meet the SLO?)", name)
	}
	if err := checkCandidates(&cf, name, jsonPrefixCachingFix, func(_ sweep.Candidate, i int, field string) string {
		return strings.TrimSuffix(fmt.Sprintf("candidates[%d].%s", i, field), ".")
	}); err != nil {
		return nil, err
	}
	// By rank, as a sweep's results give them: --top keeps the best, and
	// the candidates run best first, whatever the file's order.
	slices.SortStableFunc(cf.Candidates, func(a, b sweep.Candidate) int { return cmp.Compare(a.Rank, b.Rank) })
	return &cf, nil
}

// The fixes for a candidates file whose plans lack batch.prefix_caching:
// a candidates.json's plans can be edited by hand, a sweep's results
// (Parquet) cannot, and a sweep run again writes the key itself.
const (
	jsonPrefixCachingFix    = "add prefix_caching = false, the value the sweep ran it with, to the plan's [batch], or run the sweep again"
	parquetPrefixCachingFix = "run the sweep again ('servesim simulate --sweep SPEC', with --top N to write a candidates.json too)"
)

// checkCandidates reports, with name (the file) first, each candidate of
// cf whose rank is below 1 or another's too, whose index is below 0, or
// whose rate scale no replay can run at (a missing one reads as 0), or
// whose plan lacks batch.prefix_caching (a file written before it was
// required), with fix, the way out for the file's kind;
// at names field of candidate i as its file holds it (field "": the
// candidate).
func checkCandidates(cf *sweep.CandidateFile, name, fix string, at func(c sweep.Candidate, i int, field string) string) error {
	var errs []error
	ranks := map[int64]int{}
	for i, c := range cf.Candidates {
		if c.Rank < 1 {
			errs = append(errs, fmt.Errorf("%s: %s = %d: want ≥ 1", name, at(c, i, "rank"), c.Rank))
		} else if j, dup := ranks[c.Rank]; dup {
			errs = append(errs, fmt.Errorf("%s: %s = %d: %s has that rank too: want each rank once", name, at(c, i, "rank"), c.Rank, at(cf.Candidates[j], j, "")))
		} else {
			ranks[c.Rank] = i
		}
		if c.Index < 0 {
			errs = append(errs, fmt.Errorf("%s: %s = %d: want ≥ 0", name, at(c, i, "index"), c.Index))
		}
		if _, ok := verify.TimeScaleOf(c.RateScale); !ok {
			errs = append(errs, fmt.Errorf("%s: %s = %v: want a positive number whose inverse (the time scale) is finite", name, at(c, i, "rate_scale"), c.RateScale))
		}
		// Written before the key was required: every candidate of such a
		// file would fail alone, and the run would measure nothing.
		if plan.LacksPrefixCaching([]byte(c.Plan)) {
			errs = append(errs, fmt.Errorf("%s: %s (rank %d, %s): missing required key batch.prefix_caching (the file predates it): %s",
				name, at(c, i, "plan_toml"), c.Rank, c.Label, fix))
		}
	}
	return errors.Join(errs...)
}

// sliceLongestContext is the most tokens (prompt + output) one request
// of slice s of trace holds as a plan of any of limits serves it, the
// rows failed in the source left out as the slice verify writes leaves
// them.
func sliceLongestContext(trace string, s verify.Slice, limits []contextLimits) (int64, error) {
	in, err := traces.Import(trace, traces.FormatAuto, traces.ImportOptions{DropFailed: true})
	if err != nil {
		return 0, err
	}
	defer in.Close()
	var r traces.Reader = in
	if s.Head > 0 || s.From > 0 || s.To > 0 {
		r = traces.Slice(in, int64(s.From), int64(s.To), s.Head)
	}
	return longestContext(r, limits)
}

// parseSlice reads --slice: "" or all (the whole trace, as
// verify.Slice.String writes it), N in digits (the first N requests) or
// FROM:TO durations (TO may be empty: to the end).
func parseSlice(s string) (verify.Slice, error) {
	if s == "" || s == "all" {
		return verify.Slice{}, nil
	}
	// Digits only: strconv.Atoi would also take a sign.
	if strings.Trim(s, "0123456789") == "" {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			return verify.Slice{}, fmt.Errorf("verify: --slice %s: out of range: want at most %d requests", s, math.MaxInt)
		case n == 0:
			return verify.Slice{}, fmt.Errorf("verify: --slice %s: want a positive number of requests", s)
		}
		return verify.Slice{Head: n}, nil
	}
	from, to, ok := strings.Cut(s, ":")
	if !ok {
		return verify.Slice{}, fmt.Errorf("verify: --slice %q: want N (requests) or FROM:TO (durations, e.g. 0s:60s)", s)
	}
	// Neither end is no window: the whole trace is "all", and a ":" left
	// by an unset FROM and TO should not pass for it.
	if from == "" && to == "" {
		return verify.Slice{}, fmt.Errorf("verify: --slice %q: a window with neither end: want N (requests), FROM:TO or FROM: (durations, e.g. 0s:60s or 10s:), or all for the whole trace", s)
	}
	var sl verify.Slice
	var err error
	if from != "" {
		if sl.From, err = time.ParseDuration(from); err != nil {
			return sl, fmt.Errorf("verify: --slice %q: %w", s, err)
		}
	}
	if to != "" {
		if sl.To, err = time.ParseDuration(to); err != nil {
			return sl, fmt.Errorf("verify: --slice %q: %w", s, err)
		}
	}
	// A TO that is given ends the window: at or before FROM (0 and
	// negative included) it would leave nothing, not the whole trace.
	if sl.From < 0 || (to != "" && sl.To <= sl.From) {
		return sl, fmt.Errorf("verify: --slice %q: want 0 ≤ FROM < TO", s)
	}
	return sl, nil
}

// modelsURL is the API root base's /models, with base's user info and
// query: the default health URL. base has been validated.
func modelsURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return strings.TrimSuffix(base, "/") + "/models"
	}
	u.Path, u.RawPath = strings.TrimSuffix(u.Path, "/")+"/models", ""
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
