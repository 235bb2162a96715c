package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/internal/relpath"
	"github.com/servesim/servesim/internal/secret"
	"github.com/servesim/servesim/internal/urlshow"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

// calibrateCommand runs the experiment design against a live engine and
// writes a calibrated profile.
func calibrateCommand() *cli.Command {
	return &cli.Command{
		Name:  "calibrate",
		Usage: "run short live experiments against an engine and fit the simulator's step-time model (a profile), or build a prior one from Vidur's operator times",
		UsageText: "servesim calibrate --base-url URL --model NAME --plan quick|full --out profile.json [options]\n" +
			"servesim calibrate --vidur-profile mlp.csv --model M --device D [--tensor-parallel N] [--precision P] --out prior.json",
		Description: "Prints the experiment plan, then runs it as closed-loop replays: single requests across prompt\n" +
			"lengths (prefill cost), decode at several concurrencies and context lengths (decode cost, KV read),\n" +
			"probes that time how long a busy engine takes to admit a request, a mixed prefill+decode run, and a\n" +
			"concurrency ramp that finds the engine's real limit on concurrent sequences. Engine steps are\n" +
			"recovered from per-token timestamps and the model is fitted by NNLS; whole\n" +
			"runs are held out to measure the error on data the fit did not see. The rows of every run go to\n" +
			"--trace-out as Parquet and the profile cites them by SHA-256. Use the profile with\n" +
			"`servesim simulate --profile`.\n\n" +
			"With --vidur-profile, runs nothing: writes a prior profile of catalog model M on catalog device D\n" +
			"from Vidur's published operator times (mlp.csv): the dense layers from its table, attention and the\n" +
			"per-step overhead from the catalog's roofline figures.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "base-url", Usage: "API root, e.g. http://127.0.0.1:8000/v1 (required unless --from-traces)"},
			&cli.StringFlag{Name: "model", Usage: "model name sent in requests (required unless --from-traces)"},
			&cli.StringFlag{Name: "plan", Value: calibrate.PlanQuick, Usage: "experiment design: quick (under 3 min of live runs on the CPU test engine: 1m37s–2m15s on 2 cores in CI) or full (sized for GPUs: 1h16m on the CPU test engine)"},
			&cli.StringFlag{Name: "out", Usage: "profile JSON to write (required, also with --dry-run)"},
			&cli.StringFlag{Name: "trace-out", Usage: "directory for the runs' Parquet traces (default: OUT without .json, plus .traces)"},
			&cli.StringFlag{Name: "engine", Usage: "engine name for the profile, e.g. vllm, ollama"},
			&cli.StringFlag{Name: "engine-version", Usage: "engine version for the profile"},
			&cli.StringSliceFlag{Name: "engine-args", Usage: "engine command-line arguments for the profile (repeat or comma-separate)"},
			&cli.StringFlag{Name: "device", Usage: "device model for the profile, e.g. H100-SXM-80G, cpu"},
			&cli.StringFlag{Name: "precision", Usage: "weight precision for the profile, e.g. bf16, fp8"},
			&cli.IntFlag{Name: "block-size", Usage: "the engine's KV block size in tokens, if known, at most 10000000 (0 = unknown)"},
			&cli.IntFlag{Name: "tensor-parallel", Usage: "tensor-parallel degree of the engine (0 = unknown)"},
			&cli.StringFlag{Name: "gpu-devices", Usage: "the GPUs the engine runs on, as NVML indices or UUIDs (gpu.csv's index and uuid columns), comma-separated, e.g. 0,1: the power fit takes only their samples (default: every GPU of the host; with --from-traces, the calibration's)"},
			&cli.IntFlag{Name: "max-concurrency", DefaultText: "8 quick, 32 full", Usage: "top of the concurrency ramp; must exceed the engine's limit. A limit the ramp finds is taken for the slots of one shared KV cache (llama.cpp, Ollama) unless --engine names a paged engine (vllm, sglang, tgi, …) or the engine reports its KV capacity on /metrics (vLLM, SGLang): those keep crp = crd = cr = 0"},
			&cli.IntFlag{Name: "max-prompt", DefaultText: "1024 quick, 2048 full", Usage: "cap on the plan's prompt lengths (the prefill sweep's longest, the decode and memory runs' prompts)"},
			&cli.IntFlag{Name: "repeats", DefaultText: "2 quick, 3 full", Usage: "repeats of each prefill and decode configuration"},
			&cli.IntFlag{Name: "held-out", Value: 4, Usage: "cross-validate with N folds of whole runs: each run predicted by a fit to the others (one run: N folds of its steps, at most 100 unless it has 100 steps or fewer)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan and exit"},
			&cli.StringFlag{Name: "from-traces", Usage: "refit from the Parquet traces of an earlier calibration (its --trace-out) instead of running live"},
			&cli.IntFlag{Name: "window", DefaultText: "8", Usage: "average runs of up to N consecutive decode steps into one observation (1 = single steps)"},
			&cli.BoolFlag{Name: "absolute", Usage: "fit absolute instead of relative step-time error"},
			&cli.BoolFlag{Name: "no-trim", Usage: "keep observations the fit misses by more than 50%"},
			&cli.BoolFlag{Name: "linear", Usage: "fit the dense cost as c0 + cp·prefill tokens + cd·decode seqs instead of a piecewise-linear curve of the step's tokens"},
			&cli.StringSliceFlag{Name: "without", Usage: "hold these step-model terms at 0 (names as printed: ca, ck, crp, crd, cr, dense@N, …), to compare models by their held-out error, e.g. with --from-traces"},
			&cli.StringFlag{Name: "vidur-profile", Usage: "write a prior profile from this Vidur compute profile (mlp.csv) instead of calibrating: --model and --device are catalog names"},
			&cli.BoolFlag{Name: "reset-slots", Value: true, Usage: fmt.Sprintf("before each run, fill the engine's idle slots with one-token requests of known length (%d tokens or the chat template's, %d before second repeats): llama.cpp/Ollama keep finished requests in idle slots, in the KV cache every step attends over", calibrate.ResetPromptTokens, calibrate.LongResetPromptTokens)},
		}, clientFlags(5*time.Minute)...),
		Action: runCalibrate,
	}
}

func runCalibrate(c *cli.Context) error {
	if c.NArg() > 0 {
		return cli.Exit(fmt.Sprintf("calibrate: unexpected argument %q", c.Args().First()), 2)
	}
	if c.IsSet("vidur-profile") {
		return runVidurProfile(c)
	}
	if err := requireFlags(c, "out"); err != nil {
		return err
	}
	if n := c.Int("held-out"); n < 0 || n == 1 {
		return cli.Exit(fmt.Sprintf("calibrate: --held-out %d: want 2 folds or more (0 = 4)", n), 2)
	}
	if n := c.Int("window"); n < 0 {
		return cli.Exit(fmt.Sprintf("calibrate: --window %d: want ≥ 0 steps (0 = 8)", n), 2)
	}
	for _, f := range []string{"max-concurrency", "max-prompt", "repeats"} {
		if n := c.Int(f); n < 0 {
			return cli.Exit(fmt.Sprintf("calibrate: --%s %d: want ≥ 0 (0 = the plan's)", f, n), 2)
		}
	}
	// What the profile records, checked as saving it would check it, but
	// before any live run.
	for _, f := range []string{"block-size", "tensor-parallel"} {
		if n := c.Int(f); n < 0 {
			return cli.Exit(fmt.Sprintf("calibrate: --%s %d: want ≥ 0 (0 = unknown)", f, n), 2)
		}
	}
	// A block longer than any prompt never fills: the value is a typo, and
	// the other verbs refuse it too.
	if n := c.Int("block-size"); n > traces.MaxBlockSize {
		return cli.Exit(fmt.Sprintf("calibrate: --block-size %d: want a KV block size in [0, %d] (0 = unknown)", n, traces.MaxBlockSize), 2)
	}
	if p := c.String("precision"); p != "" {
		if _, err := model.ParsePrecision(p); err != nil {
			return cli.Exit(fmt.Sprintf("calibrate: --precision: %v", err), 2)
		}
	}
	w := c.App.Writer
	// simulate --profile takes a profile only for plans on its device: a
	// name the catalog lacks ("H100" for H100-SXM-80G) would be found out
	// after the live runs. A catalog file may add it, hence a warning.
	if d := c.String("device"); d != "" {
		if _, err := model.DefaultCatalog().Hardware(d); err != nil {
			fmt.Fprintf(c.App.ErrWriter, "calibrate: warning: --device %q: %v; the profile serves only plans with device.model %q\n", d, err, d)
		}
	}
	xplan, err := calibrate.NewPlan(c.String("plan"), calibrate.PlanOptions{
		MaxConcurrency: c.Int("max-concurrency"), MaxPrompt: c.Int("max-prompt"), Repeats: c.Int("repeats"),
	})
	if err != nil {
		return cli.Exit(err, 2)
	}
	// --max-prompt only caps the plan's lengths: one above them asks for
	// prompts the plan never sends.
	if n, lens := c.Int("max-prompt"), xplan.PromptLengths(); len(lens) > 0 && n > lens[len(lens)-1] && c.String("from-traces") == "" {
		longest := lens[len(lens)-1]
		fmt.Fprintf(c.App.ErrWriter, "calibrate: warning: --max-prompt %d is above the %s plan's longest prompt (%d tokens): it only caps prompt lengths, and the plan measures none longer than %d\n",
			n, xplan.Name, longest, longest)
	}
	if _, err := withoutTerms(c); err != nil {
		return cli.Exit(err, 2) // before any live run
	}
	var gpuDevices telemetry.DeviceSelection
	if c.IsSet("gpu-devices") {
		if gpuDevices, err = telemetry.ParseDeviceSelection(c.String("gpu-devices")); err != nil {
			return cli.Exit(fmt.Sprintf("calibrate: --gpu-devices: %v", err), 2)
		}
	}
	live := c.String("from-traces") == ""
	if !live {
		// A refit replays recorded runs: a flag that shapes live runs would
		// be silently ignored.
		liveOnly := []string{"base-url", "plan", "trace-out", "max-concurrency", "max-prompt", "repeats", "dry-run", "reset-slots"}
		for _, f := range clientFlags(0) {
			liveOnly = append(liveOnly, f.Names()[0])
		}
		for _, f := range liveOnly {
			if c.IsSet(f) {
				return cli.Exit(fmt.Sprintf("calibrate: --%s is for live runs; --from-traces refits recorded ones", f), 2)
			}
		}
	}
	if err := checkInputs("calibrate", wantDir, namedPath{"--from-traces", c.String("from-traces")}); err != nil {
		return err
	}
	if live && !c.Bool("dry-run") && (c.String("base-url") == "" || c.String("model") == "") {
		return cli.Exit("calibrate: --base-url and --model are required to run live (or refit with --from-traces DIR)", 2)
	}
	out := c.String("out")
	traceDir := c.String("trace-out")
	if traceDir == "" {
		// Only .json is cut: profiles that differ past another dot
		// (cal.v1, cal.v2) would otherwise share, and replace, one
		// directory of runs.
		traceDir = strings.TrimSuffix(out, ".json") + ".traces"
	}
	// The files are checked before anything is created or measured (a bad
	// --out would otherwise fail only when the profile is saved, minutes
	// on), and before a dry run, which would otherwise pass a command the
	// live run refuses at once.
	if err := checkCalibrateOutputs(out, traceDir, live); err != nil {
		return err
	}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model = c.String("base-url"), c.String("model")
	cfg.Timeout = c.Duration("timeout")
	if err := applyClientFlags(c, &cfg); err != nil {
		return err
	}
	if live {
		if err := dryRunnable(cfg, c.Bool("dry-run")).Validate(); err != nil {
			return cli.Exit(flagErrors("calibrate", replayFlags, err), 2)
		}
		// Before the plan's first run, which would fail on it.
		if err := replay.CheckAPIKey(cfg.APIKeyEnv); err != nil {
			return cli.Exit(fmt.Sprintf("calibrate: %v", err), 2)
		}
		printPlan(w, xplan, c.Bool("reset-slots"))
	}
	if c.Bool("dry-run") {
		return nil
	}
	info := calibrate.EngineInfo{
		Engine: c.String("engine"), EngineVersion: c.String("engine-version"), EngineArgs: maskKey(c.StringSlice("engine-args"), cfg),
		Model: c.String("model"), Precision: c.String("precision"), Device: c.String("device"),
		TensorParallel: c.Int("tensor-parallel"), BlockSize: c.Int("block-size"),
	}
	meta := traces.Meta{
		Source: "live", Model: info.Model, Precision: info.Precision, Engine: strings.TrimSpace(info.Engine + " " + info.EngineVersion),
		EngineArgs: strings.Join(info.EngineArgs, " "), Device: info.Device, ToolVersion: version, BlockSize: 0,
	}
	// The profile's fields that no other metadata holds, for a refit
	// (0 = unknown: not recorded).
	for key, n := range map[string]int{calibrate.TensorParallelKey: info.TensorParallel, calibrate.KVBlockSizeKey: info.BlockSize} {
		if n > 0 {
			meta.Set(key, strconv.Itoa(n))
		}
	}
	// An empty version is recorded too: it says that the whole engine
	// string is the name, which may hold a space.
	if info.Engine != "" || info.EngineVersion != "" {
		meta.Set(calibrate.EngineVersionKey, info.EngineVersion)
	}
	if len(info.EngineArgs) > 0 {
		list, _ := json.Marshal(info.EngineArgs)
		meta.Set(calibrate.EngineArgsKey, string(list))
	}
	if gpuDevices != nil {
		meta.Set(calibrate.GPUDevicesKey, strings.Join(gpuDevices, ","))
	}
	var runs []*calibrate.RunResult
	var power *calibrate.PowerFit
	if dir := c.String("from-traces"); dir != "" {
		if runs, err = calibrate.LoadRuns(dir); err != nil {
			return err
		}
		if err := checkOutputs("calibrate", []namedPath{{"--out", out}}, refitInputs(dir, runs)); err != nil {
			return err
		}
		if info, err = refitInfo(info, runs); err != nil {
			return err
		}
		calibrate.NameEngine(runs, info.Engine+" "+info.EngineVersion)
		// as the plan counts them: not the warm-up and slot resets
		fmt.Fprintf(w, "refitting %s from %s\n", numfmt.Count(runsBut(runs, calibrate.KindWarmup, calibrate.KindReset), "run"), dir)
		// Power from the GPU samples taken beside the runs, on the devices
		// the calibration was told unless --gpu-devices is given again.
		if gpuDevices == nil {
			if gpuDevices, err = refitGPUDevices(runs); err != nil {
				return err
			}
		}
		gpuCSV := filepath.Join(dir, "gpu.csv")
		if _, err := os.Stat(gpuCSV); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(w, "power: not refitted (no GPU samples, %s); the profile's power is null\n", gpuCSV)
		} else {
			power = fitPower(w, gpuCSV, gpuDevices, err)
		}
		if r := info.ReportedKV; r != nil {
			fmt.Fprintf(w, "KV capacity: the engine reported %d tokens (%s) before the runs, as their traces record\n", r.Tokens, r.Source)
		}
		warnRuns(w, runs, refitIgnoreEOS(runs))
		return analyzeAndSave(c, runs, info, power, out, 0)
	}
	_, statErr := os.Stat(traceDir)
	madeTraceDir := errors.Is(statErr, fs.ErrNotExist)
	if err := os.MkdirAll(traceDir, 0o755); err != nil {
		return err
	}
	if n, err := calibrate.ClearRuns(traceDir); err != nil {
		return fmt.Errorf("calibrate: --trace-out: %s: %w", traceDir, err)
	} else if n > 0 {
		fmt.Fprintf(w, "removed the %s of an earlier calibration from %s\n", numfmt.Count(n, "run trace"), traceDir)
	}
	// The GPU samples were taken beside those runs and go with them: left
	// alone, a calibration that writes no run, or measures no power, would
	// leave them beside traces they do not describe.
	gpuCSV := filepath.Join(traceDir, "gpu.csv")
	if removed, err := telemetry.RemoveStale(gpuCSV); err != nil {
		return fmt.Errorf("calibrate: --trace-out: %s: %w", traceDir, err)
	} else if removed {
		fmt.Fprintf(w, "removed the GPU samples of an earlier calibration, %s\n", gpuCSV)
	}

	// Power: NVML when there is a driver; otherwise say so once. Every
	// GPU is sampled (a refit may select others), but a --gpu-devices the
	// host lacks is refused now, not after the runs at the fit.
	rec, nvmlErr := startNVML(c.Context, 100*time.Millisecond, gpuCSV, nil)
	if nvmlErr != nil {
		fmt.Fprintf(w, "power: not measured (%v); the profile's power is null\n", nvmlErr)
	} else if err := rec.CheckDevices(gpuDevices); err != nil {
		rec.Discard()
		if madeTraceDir {
			os.Remove(traceDir) // still empty
		}
		return cli.Exit(fmt.Sprintf("calibrate: --gpu-devices: %v", err), 2)
	}

	fmt.Fprintf(w, "running against %s (model %s); traces to %s\n", urlshow.String(cfg.BaseURL), cfg.Model, traceDir)
	info.ReportedKV = readReportedKV(c.Context, cfg.BaseURL, w)
	if r := info.ReportedKV; r != nil {
		b, _ := json.Marshal(r)
		meta.Set(calibrate.ReportedKVKey, string(b))
	}
	t0 := time.Now()
	runs, tm, err := calibrate.RunPlan(c.Context, xplan, calibrate.LiveOptions{Replay: cfg, TraceDir: traceDir, Meta: meta, Log: w, ResetSlots: c.Bool("reset-slots")})
	wall := time.Since(t0)
	// Run traces renamed into place whose directory was not synced are
	// written: the calibration goes on, and the error is returned after;
	// a failure, first in its error, is told apart from them.
	var notSynced error
	if atomicfile.OnlyNotSynced(err) {
		notSynced, err = err, nil
	} else {
		err, notSynced = splitFailure(err)
	}
	// The samples go beside the run traces written, and nowhere when none
	// was. A sampling or write failure stops the power fit: the file holds
	// only part of the runs' samples. Samples renamed into place whose
	// directory was not synced are whole: fitted, the error returned after.
	var published error
	if len(runs) > 0 {
		stopErr, pubErr := rec.Stop().Err, rec.Publish()
		if atomicfile.OnlyNotSynced(pubErr) {
			notSynced, pubErr = errors.Join(notSynced, pubErr), nil
		}
		published = errors.Join(stopErr, pubErr)
	} else {
		rec.Discard()
	}
	if err != nil {
		if len(runs) > 0 {
			// the measured runs, as the plan and a refit count them: not the
			// warm-up and slot resets, which alone leave nothing to refit
			if measured := runsBut(runs, calibrate.KindWarmup, calibrate.KindReset); measured > 0 {
				are, them := "are", "them"
				if measured == 1 {
					are, them = "is", "it"
				}
				err = fmt.Errorf("%w (the %s before it %s in %s: `calibrate --from-traces` refits %s)", err, numfmt.Count(measured, "run"), are, traceDir, them)
			}
			// The samples beside the runs written: a refit fits power to them.
			return errors.Join(err, published, notSynced)
		}
		if madeTraceDir {
			os.Remove(traceDir) // only if nothing was written to it
		}
		return err
	}
	fmt.Fprintf(w, "live runs took %v (text model: tokens = %.4g × bytes + %.4g)\n", wall.Round(100*time.Millisecond), tm.TokensPerByte, tm.Overhead)
	warnRuns(w, runs, &cfg.IgnoreEOS)
	if nvmlErr == nil {
		power = fitPower(w, gpuCSV, gpuDevices, published)
	}
	err = analyzeAndSave(c, runs, info, power, out, wall)
	if notSynced != nil {
		err = errors.Join(err, notSynced)
	}
	return err
}

// splitFailure parts RunPlan's error into the failure that stopped the
// runs, first in it, and the errors after it, of traces renamed into
// place before it whose directory was not synced (nil when none).
func splitFailure(err error) (failure, notSynced error) {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err, nil
	}
	errs := j.Unwrap()
	if len(errs) < 2 || !atomicfile.OnlyNotSynced(errors.Join(errs[1:]...)) {
		return err, nil
	}
	return errs[0], errors.Join(errs[1:]...)
}

// dryRunnable is cfg as a dry run checks it: the client flags given, as
// the live run would check them, but no engine to name.
func dryRunnable(cfg replay.Config, dry bool) *replay.Config {
	if dry && cfg.BaseURL == "" {
		cfg.BaseURL = "http://engine.invalid/v1"
	}
	if dry && cfg.Model == "" {
		cfg.Model = "model"
	}
	return &cfg
}

// printPlan prints the experiment plan and, with slot resets, the
// requests they send besides: one per slot before every run, more than
// the plan's own in the quick plan.
func printPlan(w io.Writer, p *calibrate.Plan, resetSlots bool) {
	p.Print(w)
	if resetSlots {
		n := len(p.Runs) * p.Slots()
		fmt.Fprintf(w, "  before each of the %d runs (the warm-up included), %d one-token requests at once reset the engine's slots (--reset-slots): %d slot-reset requests, not measured\n",
			len(p.Runs), p.Slots(), n)
	}
}

// startNVML is telemetry.StartNVML; tests put a fake GPU in its place.
var startNVML = telemetry.StartNVML

// fitPower fits power to the GPU samples in gpuCSV, those of the devices
// sel names (nil: all), saying on w what it fitted; nil, said on w, when
// it could not (published: the error of writing the samples, if any).
func fitPower(w io.Writer, gpuCSV string, sel telemetry.DeviceSelection, published error) *calibrate.PowerFit {
	var samples []calibrate.PowerSample
	var devs []calibrate.PowerDevice
	var power *calibrate.PowerFit
	err := published
	if err == nil {
		samples, devs, err = readPowerCSV(gpuCSV, sel)
	}
	if err == nil {
		power, err = calibrate.FitPower(samples)
	}
	if err != nil {
		fmt.Fprintf(w, "power: not fitted (%v)\n", err)
		return nil
	}
	power.Devices = devs
	fmt.Fprintf(w, "power: idle %.1f W + %.1f W × utilization (R² %.3f, n=%d) per device, fitted to %s\n",
		power.Idle.Value, power.Dynamic.Value, power.Quality.R2, power.Quality.N, powerDevicesText(devs))
	if sel == nil && len(devs) > 1 {
		fmt.Fprintf(w, "power: warning: fitted to all %d GPUs of the host; if the engine runs on fewer, the idle ones bias the fit toward idle power: name the engine's with --gpu-devices\n", len(devs))
	}
	return power
}

// refitGPUDevices is the --gpu-devices the traces' calibration was given
// (nil: none, or traces written before it was recorded); traces that
// disagree, or a value that is no selection, are errors naming the file.
// Selections are compared as the devices they select: "01" is device 1,
// and order does not matter.
func refitGPUDevices(runs []*calibrate.RunResult) (telemetry.DeviceSelection, error) {
	var sel telemetry.DeviceSelection
	var val, from string
	for _, r := range runs {
		v, ok := r.Meta.Extra[calibrate.GPUDevicesKey]
		if !ok {
			continue // every GPU, or written before it was recorded
		}
		s, err := telemetry.ParseDeviceSelection(v)
		if err != nil {
			return nil, fmt.Errorf("calibrate: --from-traces: %s: metadata %s = %q: %v", r.Trace.Path, calibrate.GPUDevicesKey, v, err)
		}
		switch {
		case sel == nil:
			sel, val, from = s, v, r.Trace.Path // the first trace's, in its order
		case !sameDevices(sel, s):
			return nil, fmt.Errorf("calibrate: --from-traces: %s was measured with gpu-devices %q, %s with %q", from, val, r.Trace.Path, v)
		}
	}
	return sel, nil
}

// sameDevices says whether two parsed selections select the same devices.
func sameDevices(a, b telemetry.DeviceSelection) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// readReportedKV reads the KV capacity the engine reports on /metrics
// (exact, where the memory probe sees only a lower bound); nil, said on
// w, when it reports none or gives no page within telemetry.PreRunWait.
// The read is made before the live runs, so a hung /metrics must not hold
// them back (the GPU recorder would sample the wait); the capacity is only
// a report, and the profile is fitted without it.
func readReportedKV(ctx context.Context, baseURL string, w io.Writer) *calibrate.ReportedKV {
	ec, err := telemetry.ReadEngineCapacity(ctx, http.DefaultClient, baseURL)
	switch {
	case err != nil:
		fmt.Fprintf(w, "KV capacity: the engine's report not read (%v); the profile's kv_reported is null\n", err)
		return nil
	case ec == nil:
		fmt.Fprintf(w, "KV capacity: the engine reports none on /metrics; the profile's kv_reported is null\n")
		return nil
	}
	fmt.Fprintf(w, "KV capacity: the engine reports %d tokens (%s)\n", ec.Tokens, ec.Metric)
	return &calibrate.ReportedKV{Source: ec.Metric, Tokens: ec.Tokens, Blocks: ec.Blocks, BlockSize: ec.BlockSize,
		GPUMemoryUtilization: ec.GPUMemoryUtilization}
}

// engineNamed says that --engine, given again without --engine-version,
// names the recorded engine (name, a space, its version): restating the
// engine does not contradict the version the traces hold.
func engineNamed(version string) func(flag, recorded string) bool {
	return func(flag, recorded string) bool {
		return version == "" && strings.HasPrefix(recorded, flag+" ")
	}
}

// refitInfo fills what the flags leave unset from the metadata of the
// traces being refitted, so that a refitted profile still names the
// device, model and engine it was measured on (simulate refuses a profile
// on another device). A flag that contradicts the traces, or traces that
// disagree, are errors.
func refitInfo(info calibrate.EngineInfo, runs []*calibrate.RunResult) (calibrate.EngineInfo, error) {
	engine := strings.TrimSpace(info.Engine + " " + info.EngineVersion)
	exact := func(a, b string) bool { return a == b }
	fields := []struct {
		flag string
		v    *string
		meta func(traces.Meta) string
		same func(a, b string) bool
		// named says that the flag, not the same as the traces' value,
		// still names it, which then replaces the flag's; nil: never.
		named func(flag, recorded string) bool
	}{
		{"model", &info.Model, func(m traces.Meta) string { return m.Model }, exact, nil},
		{"precision", &info.Precision, func(m traces.Meta) string { return m.Precision }, exact, nil},
		// as simulate matches a profile's device to a plan's: the catalog's way
		{"device", &info.Device, func(m traces.Meta) string { return m.Device }, model.SameName, nil},
		{"engine and --engine-version", &engine, func(m traces.Meta) string { return m.Engine }, exact, engineNamed(info.EngineVersion)},
	}
	for _, f := range fields {
		var val, from string
		for _, r := range runs {
			v := f.meta(r.Meta)
			if v == "" {
				continue
			}
			if val != "" && !f.same(v, val) {
				return info, fmt.Errorf("calibrate: --from-traces: %s was measured with %s %q, %s with %q", from, f.flag, val, r.Trace.Path, v)
			}
			val, from = v, r.Trace.Path
		}
		switch {
		case *f.v == "" || f.named != nil && val != "" && f.named(*f.v, val):
			*f.v = val
		case val != "" && !f.same(*f.v, val):
			return info, fmt.Errorf("calibrate: --%s %q, but %s was measured with %q", f.flag, *f.v, from, val)
		}
	}
	info.Engine, info.EngineVersion, _ = strings.Cut(engine, " ")
	for _, r := range runs {
		// The version as recorded, where it was (empty: none): the name
		// may be missing, or hold a space.
		if v, ok := r.Meta.Extra[calibrate.EngineVersionKey]; ok && strings.HasSuffix(engine, v) {
			info.Engine, info.EngineVersion = strings.TrimSpace(strings.TrimSuffix(engine, v)), v
			break
		}
	}
	// The arguments as a list, where the traces hold one: an argument
	// with a space in it stays one.
	var args []string
	var argsFrom string
	for _, r := range runs {
		v := strings.Fields(r.Meta.EngineArgs) // traces written before the list
		if list, ok := r.Meta.Extra[calibrate.EngineArgsKey]; ok {
			if err := json.Unmarshal([]byte(list), &v); err != nil {
				return info, fmt.Errorf("calibrate: --from-traces: %s: metadata %s = %q, want a JSON array of strings", r.Trace.Path, calibrate.EngineArgsKey, list)
			}
		}
		if len(v) == 0 {
			continue
		}
		if args != nil && !slices.Equal(v, args) {
			return info, fmt.Errorf("calibrate: --from-traces: %s was measured with engine-args %q, %s with %q", argsFrom, args, r.Trace.Path, v)
		}
		args, argsFrom = v, r.Trace.Path
	}
	switch {
	case len(info.EngineArgs) == 0:
		info.EngineArgs = args
	case args != nil && !slices.Equal(info.EngineArgs, args):
		return info, fmt.Errorf("calibrate: --engine-args %q, but %s was measured with %q", info.EngineArgs, argsFrom, args)
	}
	// The tensor-parallel degree and KV block size were told, not
	// measured: a flag given wins over the traces, so that a refit can
	// correct them.
	counts := []struct {
		flag, key string
		v         *int
	}{
		{"tensor-parallel", calibrate.TensorParallelKey, &info.TensorParallel},
		{"block-size", calibrate.KVBlockSizeKey, &info.BlockSize},
	}
	for _, f := range counts {
		var val, from string
		var n int
		for _, r := range runs {
			v, ok := r.Meta.Extra[f.key]
			if !ok {
				continue // unknown, or written before it was recorded
			}
			// Present, it must be a count (calibrate leaves an unknown
			// one out), and is compared as one: "02" is "2".
			m, err := strconv.Atoi(v)
			if err != nil || m <= 0 {
				return info, fmt.Errorf("calibrate: --from-traces: %s: metadata %s = %q, want an integer > 0", r.Trace.Path, f.key, v)
			}
			if val != "" && m != n {
				return info, fmt.Errorf("calibrate: --from-traces: %s was measured with %s %q, %s with %q", from, f.flag, val, r.Trace.Path, v)
			}
			val, from, n = v, r.Trace.Path, m
		}
		if *f.v == 0 {
			*f.v = n
		}
	}
	// What the engine reported on /metrics before the runs (traces
	// written since it was recorded): a refit does not read it again.
	var reportedFrom, reported string
	for _, r := range runs {
		v, ok := r.Meta.Extra[calibrate.ReportedKVKey]
		if !ok {
			continue
		}
		kv, err := calibrate.ParseReportedKV(v)
		if err != nil {
			return info, fmt.Errorf("calibrate: --from-traces: %s: metadata %s = %q: %v", r.Trace.Path, calibrate.ReportedKVKey, v, err)
		}
		if info.ReportedKV != nil && *kv != *info.ReportedKV {
			return info, fmt.Errorf("calibrate: --from-traces: %s was measured with the engine reporting KV capacity %s, %s with %s", reportedFrom, reported, r.Trace.Path, v)
		}
		info.ReportedKV, reportedFrom, reported = kv, r.Trace.Path, v
	}
	return info, nil
}

// warnRuns says, as a live calibration and a refit alike, which runs had
// requests fail (left out of the fit) and which had requests stop at EOS
// before their max_tokens, or cut there by an engine limit (finish_reason
// "length"), which --ignore-eos does not lift; ignoreEOS is whether they
// were sent with --ignore-eos, nil when unknown.
func warnRuns(w io.Writer, runs []*calibrate.RunResult, ignoreEOS *bool) {
	stopped, limited := false, false
	for _, r := range runs {
		if r.Summary.Failed > 0 {
			fmt.Fprintf(w, "warning: run %s: %d of %d requests failed (%v); they are left out of the fit\n", r.Spec.Name, r.Summary.Failed, r.Summary.Sent, r.Summary.FailedByKind)
		}
		short, ok := r.EarlyStops()
		cut := r.LimitStops()
		if short > cut {
			stopped = true
			fmt.Fprintf(w, "warning: run %s: %d of %d requests stopped at EOS before their max_tokens\n", r.Spec.Name, short-cut, ok)
		}
		if cut > 0 {
			limited = true
			fmt.Fprintf(w, "warning: run %s: %d of %d requests ended before their max_tokens with finish_reason \"length\": an engine limit (its context, or a cap on output tokens) cut them\n",
				r.Spec.Name, cut, ok)
		}
	}
	if limited {
		// Not EOS: --ignore-eos cannot lift it, whatever it was set to.
		fmt.Fprintf(w, "warning: runs whose outputs an engine limit cut lost their planned shape; the fit still holds; raise the engine's context (or its cap on output tokens), or lower --max-prompt\n")
	}
	if !stopped {
		return
	}
	// The fit takes the steps as they came; what is lost is the runs'
	// design: staggered ends, the admission run's long carrier.
	hint := "the traces do not say whether --ignore-eos was set; it needs an engine that has ignore_eos (" + eosEngineNames + ")"
	switch {
	case ignoreEOS == nil:
	case *ignoreEOS:
		hint = "--ignore-eos was set, but the engine did not heed it"
	case eosEngine(runs) != "":
		hint = fmt.Sprintf("--ignore-eos was not set: calibrate with it (engine %q has ignore_eos)", eosEngine(runs))
	default:
		hint = "--ignore-eos was not set: calibrate with it, on an engine that has ignore_eos (" + eosEngineNames + ")"
	}
	fmt.Fprintf(w, "warning: runs whose requests stopped at EOS lost their planned shape (output lengths, the mixed run's staggered ends, the admission run's carrier); the fit still holds; %s\n", hint)
}

// Engines whose requests take ignore_eos, by the name calibrate records
// (--engine, the traces' engine) matched at its start, whatever the case,
// and as a warning names them.
var eosEngines = []string{"vllm", "sglang", "llama.cpp", "llamacpp", "llama-server"}

const eosEngineNames = "vLLM, SGLang, llama.cpp's server"

// eosEngine is the first engine name in the runs' metadata (not those on
// an engine of their own) that names an engine with ignore_eos, "" when
// none does.
func eosEngine(runs []*calibrate.RunResult) string {
	for _, r := range runs {
		name := strings.ToLower(strings.TrimSpace(r.Meta.Engine))
		if r.Slots == 0 && slices.ContainsFunc(eosEngines, func(e string) bool { return strings.HasPrefix(name, e) }) {
			return r.Meta.Engine
		}
	}
	return ""
}

// refitIgnoreEOS is whether the refitted runs were sent with
// --ignore-eos, as their traces record it; nil when they do not say.
func refitIgnoreEOS(runs []*calibrate.RunResult) *bool {
	for _, r := range runs {
		if v, err := strconv.ParseBool(r.Meta.Extra[calibrate.IgnoreEOSKey]); err == nil {
			return &v
		}
	}
	return nil
}

// withoutTerms reads --without: the step-model terms held at 0. A term
// the model (--linear or not) does not have is held at 0 already: its
// held-out error would be the full model's.
func withoutTerms(c *cli.Context) ([calibrate.NumTerms]bool, error) {
	var without [calibrate.NumTerms]bool
	for _, name := range c.StringSlice("without") {
		t, err := calibrate.ParseTerm(name)
		if err != nil {
			return without, fmt.Errorf("calibrate: --without: %w", err)
		}
		switch linear := c.Bool("linear"); {
		case t.InModel(linear):
		case linear:
			return without, fmt.Errorf("calibrate: --without %s: --linear fits c0, cp and cd instead of the dense curve", name)
		default:
			return without, fmt.Errorf("calibrate: --without %s: the dense curve replaces c0, cp and cd (fitted with --linear)", name)
		}
		without[t] = true
	}
	return without, nil
}

// refitInputs is what a refit from dir reads, which --out must not
// replace: the runs' traces, which the profile cites, and the GPU samples
// beside them.
func refitInputs(dir string, runs []*calibrate.RunResult) []namedPath {
	in := []namedPath{{"--from-traces", filepath.Join(dir, "gpu.csv")}}
	for _, r := range runs {
		in = append(in, namedPath{"--from-traces", r.Trace.Path})
	}
	return in
}

// runsBut counts the runs whose kind is none of skip.
func runsBut(runs []*calibrate.RunResult, skip ...string) int {
	n := 0
	for _, r := range runs {
		if !slices.Contains(skip, r.Spec.Kind) {
			n++
		}
	}
	return n
}

// analyzeAndSave fits the runs, prints the analysis and saves the profile.
func analyzeAndSave(c *cli.Context, runs []*calibrate.RunResult, info calibrate.EngineInfo, power *calibrate.PowerFit, out string, wall time.Duration) error {
	w := c.App.Writer
	without, err := withoutTerms(c)
	if err != nil {
		return err
	}
	a, err := calibrate.Analyze(runs, calibrate.AnalyzeOptions{
		HeldOutK: c.Int("held-out"), Window: c.Int("window"), Relative: !c.Bool("absolute"), NoTrim: c.Bool("no-trim"),
		Linear: c.Bool("linear"), Without: without,
	})
	if err != nil {
		return err
	}
	a.Print(w)
	p := a.Profile(info, power, time.Now())
	// The profile names its traces from its own directory, as verify's
	// refit looks them up.
	for i := range p.Traces {
		p.Traces[i].Path = relpath.From(filepath.Dir(out), p.Traces[i].Path)
	}
	// main catches the first interrupt: a fit that ignored it would save
	// the profile and exit 0. The run traces stay for a refit.
	if err := c.Context.Err(); err != nil {
		return fmt.Errorf("calibrate: interrupted, %s not written (calibrate --from-traces refits the run traces): %w", out, err)
	}
	// A profile renamed into place whose directory was not synced is
	// written: it is said so, and the error returned after.
	saveErr := p.Save(out)
	if saveErr != nil && !atomicfile.OnlyNotSynced(saveErr) {
		return saveErr
	}
	live := "" // a refit measured nothing live
	if wall > 0 {
		live = fmt.Sprintf(" (live time %v)", wall.Round(100*time.Millisecond))
	}
	fmt.Fprintf(w, "wrote %s: R² %.4f, held-out MdAPE %.1f%%, %s%s\n", out, p.Quality.R2, 100**p.Quality.HeldOutMdAPE, numfmt.Count(len(p.Traces), "trace"), live)
	return saveErr
}

// readPowerCSV reads the power and SM utilisation columns of a telemetry
// GPU CSV, skipping rows where either was not measured, and keeping only
// the devices sel selects (all when nil): NVML samples every GPU of the
// host, and the idle ones beside an engine on fewer would pull the fit
// toward their idle power. It returns the devices kept, and errors when
// sel names one the samples lack or the devices differ in model (one fit
// cannot price both).
func readPowerCSV(path string, sel telemetry.DeviceSelection) ([]calibrate.PowerSample, []calibrate.PowerDevice, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	ti, okT := col["t_ns"]
	pi, okP := col["power_w"]
	ui, okU := col["sm_util_pct"]
	ii, okI := col["index"]
	idi, okID := col["uuid"]
	ni, okN := col["name"]
	if !okT || !okP || !okU || !okI || !okID || !okN {
		return nil, nil, fmt.Errorf("%s: want columns t_ns, index, uuid, name, power_w, sm_util_pct", path)
	}
	var out []calibrate.PowerSample
	var devs []calibrate.PowerDevice
	seen := map[int]bool{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		idx, err := strconv.Atoi(rec[ii])
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: index %q: want an NVML device index", path, line, rec[ii])
		}
		if !sel.Has(idx, rec[idi]) {
			continue
		}
		if !seen[idx] {
			seen[idx] = true
			devs = append(devs, calibrate.PowerDevice{Index: idx, UUID: rec[idi], Name: rec[ni]})
		}
		t, err := strconv.ParseInt(rec[ti], 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: t_ns %q: want whole nanoseconds", path, line, rec[ti])
		}
		// An empty cell is a reading the device did not report; anything
		// else that is no number is a damaged file, not a row to drop.
		if rec[pi] == "" || rec[ui] == "" {
			continue // not measured
		}
		pw, err := strconv.ParseFloat(rec[pi], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: power_w %q: want watts, or an empty cell when not measured", path, line, rec[pi])
		}
		u, err := strconv.ParseFloat(rec[ui], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: sm_util_pct %q: want a percent, or an empty cell when not measured", path, line, rec[ui])
		}
		// A reading the fit cannot take is named here, where its line is
		// known, not later by its position among the kept samples.
		if !(pw >= 0) || math.IsInf(pw, 0) {
			return nil, nil, fmt.Errorf("%s:%d: power_w %q: want finite watts >= 0", path, line, rec[pi])
		}
		if !(u >= 0 && u <= 100) {
			return nil, nil, fmt.Errorf("%s:%d: sm_util_pct %q: want a percent in [0, 100]", path, line, rec[ui])
		}
		out = append(out, calibrate.PowerSample{T: t, Watts: pw, Utilization: u / 100})
	}
	for _, want := range sel {
		found := false
		for _, d := range devs {
			found = found || want == d.UUID || want == strconv.Itoa(d.Index)
		}
		if !found {
			return nil, nil, fmt.Errorf("%s: --gpu-devices %s: the samples have no such device (NVML index or UUID)", path, want)
		}
	}
	for i := 1; i < len(devs); i++ {
		if d := devs[i]; d.Name != devs[0].Name {
			return nil, nil, fmt.Errorf("%s: device %d is %q but device %d is %q: one power fit cannot describe both; choose the engine's with --gpu-devices",
				path, devs[0].Index, devs[0].Name, d.Index, d.Name)
		}
	}
	return out, devs, nil
}

// powerDevicesText names the devices of a power fit, e.g. "1 × NVIDIA
// H100 80GB HBM3 (0)".
func powerDevicesText(devs []calibrate.PowerDevice) string {
	if len(devs) == 0 {
		return "no device"
	}
	idx := make([]string, len(devs))
	for i, d := range devs {
		idx[i] = strconv.Itoa(d.Index)
	}
	return fmt.Sprintf("%d × %s (%s)", len(devs), devs[0].Name, strings.Join(idx, ", "))
}

// profileStep is a loaded --profile: the step model and how to name it,
// and the KV capacity it measured.
type profileStep struct {
	cmd  string // the command that read it, which its usage errors name
	path string
	sum  string // the file's sha256, as "sha256:HEX"
	prof *calibrate.Profile
	step sim.StepTimer
	desc string
	// power is the profile's power fit, watts per device; nil when it has
	// none and the catalog's figures price the energy.
	power     func(float64) float64
	powerDesc string
	kv        *plan.MeasuredKV // nil when the profile measured none
	raised    int              // plans whose KV capacity the profile's measured tokens raised
	reported  int              // plans whose KV capacity the engine's report set, larger or smaller
	warned    map[string]bool  // the differences from the plans already warned of
}

// loadProfileFlag loads --profile, if given (nil if not). Its coefficients
// become the step model of every plan, and the KV tokens it saw held at
// once the KV capacity the plans resolve with where the catalog assumes
// fewer (plan.ResolveMeasured), so that the capacity checks judge the
// cache the simulation uses.
func loadProfileFlag(c *cli.Context) (*profileStep, error) {
	path := c.String("profile")
	if path == "" {
		return nil, nil
	}
	p, err := calibrate.LoadProfile(path)
	if err != nil {
		// simulate and verify read it: the error is theirs, not calibrate's
		return nil, fmt.Errorf("%s: --profile: %w", c.Command.Name, err)
	}
	sum, err := calibrate.FileSHA256(path)
	if err != nil {
		return nil, err
	}
	ps := &profileStep{cmd: c.Command.Name, path: path, sum: traces.SHA256Checksum(sum), prof: p, kv: verify.ProfileKV(p, path), warned: map[string]bool{}}
	if ps.step, ps.desc, err = verify.StepModel(p, path); err != nil {
		return nil, err
	}
	ps.power, ps.powerDesc = verify.PowerModel(p, path)
	// fits passes any plan then: a CPU's step times would price a GPU;
	// and PowerModel leaves out a power fit whose device is unknown.
	if p.Device == "" {
		powerFit := ""
		if p.Power != nil {
			powerFit = ", and its power fit is left out: the catalog's idle and TDP figures price the energy"
		}
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s names no device it was measured on (calibrate --device): not checked against the plans' devices%s\n", ps.cmd, path, powerFit)
	}
	return ps, nil
}

// measuredKV is the KV capacity plans resolve with: ps's, or none.
func (ps *profileStep) measuredKV() *plan.MeasuredKV {
	if ps == nil {
		return nil
	}
	return ps.kv
}

// fits checks that plan name ("plan a.toml": several plans may run on
// several devices) runs on the device the profile was measured on: step
// times of one device say nothing about another. Names compare as the
// catalog looks them up: case and surrounding spaces aside. A mismatch is
// a usage error: inputs that do not belong together, found before any
// work.
func (ps *profileStep) fits(p *plan.Plan, name string) error {
	if ps == nil || ps.prof.Device == "" || model.SameName(ps.prof.Device, p.Device.Model) {
		return nil
	}
	// Printed as it is, as usage errors are: it names its command and flag.
	return usageErrorf("%s: --profile %s: the profile was measured on device %q, but %s runs on %q (device.model): calibrate on that device, or leave --profile out for the roofline prior",
		ps.cmd, ps.path, ps.prof.Device, name, p.Device.Model)
}

// announce says on warn, as command cmd, how a resolved plan differs
// from what the profile measured (each difference once), and on kv that
// the profile raised its KV capacity (a sweep counts those instead).
func (ps *profileStep) announce(cmd string, r *plan.Resolved, warn, kv io.Writer) {
	if ps == nil {
		return
	}
	ps.warnMismatch(cmd, r.Plan, warn)
	if r.KVSource != "" {
		switch tokens := ps.kv.Tokens; {
		case strings.HasSuffix(r.KVSource, plan.ReportedKVSuffix):
			ps.reported++
			fmt.Fprintf(kv, "%s: KV capacity set to the %d blocks of %d the engine reported (catalog: %d blocks)\n", cmd,
				r.Capacity.KVBlocks, r.Memory.BlockSize, r.CatalogKVBlocks)
		default:
			ps.raised++
			if rep := ps.kv.Reported; rep != nil {
				tokens = max(tokens, rep.Tokens)
			}
			fmt.Fprintf(kv, "%s: KV capacity raised to the profile's measured %d tokens → %d blocks of %d (catalog: %d blocks)\n", cmd,
				tokens, r.Capacity.KVBlocks, r.Memory.BlockSize, r.CatalogKVBlocks)
		}
	}
}

// warnMismatch says on warn, as command cmd, how plan p differs from what
// the profile measured, each difference once.
func (ps *profileStep) warnMismatch(cmd string, p *plan.Plan, warn io.Writer) {
	ps.warnOnce(cmd, profileMismatch(ps.prof, p), warn)
}

// measuresContext is whether the profile records the longest context
// its fit saw: without it there is nothing to warn of, and the trace
// need not be read for its longest request.
func (ps *profileStep) measuresContext() bool {
	return ps != nil && ps.prof.MaxContext > 0
}

// warnContext says on warn, as command cmd, when the longest request
// simulated (prompt + output tokens) goes past the longest context the
// profile's fit saw, once.
func (ps *profileStep) warnContext(cmd string, longest int64, warn io.Writer) {
	if ps == nil {
		return
	}
	if d := contextMismatch(ps.prof, longest); d != "" {
		ps.warnOnce(cmd, []string{d}, warn)
	}
}

// warnOnce says on warn, as command cmd, the differences diff from what
// the profile measured that it has not said yet.
func (ps *profileStep) warnOnce(cmd string, diff []string, warn io.Writer) {
	// By difference, not by plan: a precision all plans differ in is one
	// warning, however their other keys differ.
	var fresh []string
	for _, d := range diff {
		if !ps.warned[d] {
			ps.warned[d] = true
			fresh = append(fresh, d)
		}
	}
	if len(fresh) > 0 {
		fmt.Fprintf(warn, "%s: warning: %s was measured at %s; its step model may not hold\n", cmd, ps.path, strings.Join(fresh, "; "))
	}
}

// profileMismatch says how a plan differs from its profile's measured
// configuration other than by device: precision, tensor parallelism,
// sequences at once past the most its ramp ran, or the model (compared loosely: a profile names the model as served, which
// need not be the catalog's name), one entry per difference; none when
// nothing differs or the profile does not say.
func profileMismatch(p *calibrate.Profile, pl *plan.Plan) []string {
	var diff []string
	if got, err := model.ParsePrecision(p.Precision); err == nil && p.Precision != "" {
		if want, err := model.ParsePrecision(pl.Model.Precision); err == nil && got != want {
			diff = append(diff, fmt.Sprintf("precision %s, the plan %s", p.Precision, pl.Model.Precision))
		}
	}
	if p.TensorParallel > 0 && p.TensorParallel != pl.Device.Count {
		diff = append(diff, fmt.Sprintf("tensor parallelism %d, the plan %s", p.TensorParallel, numfmt.Count(pl.Device.Count, "device")))
	}
	key, seqs := "max_num_seqs", pl.Batch.MaxNumSeqs
	if seqs == 0 {
		key, seqs = "batch_size", pl.Batch.BatchSize
	}
	if p.MaxSeqs > 0 && seqs > p.MaxSeqs {
		diff = append(diff, fmt.Sprintf("up to %d sequences at once, the plan %s %d (decode terms extrapolated)", p.MaxSeqs, key, seqs))
	}
	// Names as the catalog reads them: without case or surrounding spaces.
	served, name := strings.ToLower(strings.TrimSpace(p.Model)), strings.ToLower(strings.TrimSpace(pl.Model.Name))
	if served != "" && !strings.Contains(served, name) && !model.SameName(served, pl.Model.WeightVersion) {
		diff = append(diff, fmt.Sprintf("model %q, the plan %s", p.Model, pl.Model.Name))
	}
	return diff
}

// contextMismatch says how a trace whose longest request holds longest
// tokens (prompt + output) goes past the longest context profile p was
// fitted on; "" when it does not, or the profile does not say.
func contextMismatch(p *calibrate.Profile, longest int64) string {
	if p.MaxContext <= 0 || longest <= p.MaxContext {
		return ""
	}
	return fmt.Sprintf("contexts up to %d tokens, the trace's longest prompt + output %d (attention terms extrapolated)", p.MaxContext, longest)
}

// contextLimits is what a plan lets a request hold, as the simulator
// serves it: its output capped at max_new_tokens (0: no cap), and refused
// past max_model_len (0: no limit).
type contextLimits struct{ maxNew, maxModelLen int64 }

// planContextLimits is the distinct limits of plans, so that a trace is
// measured once per kind of plan, not once per plan.
func planContextLimits(plans []*plan.Plan) []contextLimits {
	var out []contextLimits
	for _, p := range plans {
		l := contextLimits{int64(p.Model.MaxNewTokens), int64(p.Device.MaxModelLen)}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// served is the tokens request r holds at its end (prompt + output) as a
// plan of limits l serves it, and whether it is served at all: the
// simulator rejects a row the source trace recorded as failed, and one
// past max_model_len.
func (l contextLimits) served(r *traces.Request) (int64, bool) {
	if r.SourceFailed {
		return 0, false
	}
	prompt, out := int64(max(r.PromptTokens, 1)), int64(max(r.OutputTokens, 1))
	if l.maxNew > 0 {
		out = min(out, l.maxNew)
	}
	if l.maxModelLen > 0 && prompt+out > l.maxModelLen {
		return 0, false
	}
	return prompt + out, true
}

// longestServed is the most tokens (prompt + output) request r holds
// under any of limits, at least longest.
func longestServed(longest int64, r *traces.Request, limits []contextLimits) int64 {
	for _, l := range limits {
		if n, ok := l.served(r); ok {
			longest = max(longest, n)
		}
	}
	return longest
}

// longestContext is the most tokens (prompt + output) one request of in
// holds as a plan of any of limits serves it.
func longestContext(in traces.Reader, limits []contextLimits) (int64, error) {
	var longest int64
	for in.Next() {
		longest = longestServed(longest, in.At(), limits)
	}
	return longest, in.Err()
}

// maskKey is args with the API key masked: an engine started with it
// among its arguments (vLLM's --api-key) would have it written into the
// profile and every run trace. The key may be given in the base URL
// (https://TOKEN@host/v1) as well as in the environment.
func maskKey(args []string, cfg replay.Config) []string {
	keys := secret.New(append(secret.RawURL(cfg.BaseURL), secret.Env(cfg.APIKeyEnv))...)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = keys.String(a)
	}
	return out
}

// checkCalibrateOutputs refuses an --out the profile cannot be saved to
// and, for a live run, a --trace-out its runs cannot be written to.
func checkCalibrateOutputs(out, traceDir string, live bool) error {
	if err := atomicfile.CheckFile(out); err != nil {
		return usageErrorf("calibrate: --out: %v", err)
	}
	if !live {
		return nil
	}
	// The runs' directory at the profile's path leaves no room to save it.
	if err := checkOutputs("calibrate", []namedPath{{"--out", out}, {"--trace-out", traceDir}}, nil); err != nil {
		return err
	}
	// Cleaned, "runs/" is the directory "runs", which lies in ".".
	if err := atomicfile.CheckDir(filepath.Clean(traceDir)); err != nil {
		return cli.Exit(fmt.Sprintf("calibrate: --trace-out: %v", err), 2)
	}
	// The runs' traces and GPU samples go there, and a calibration into
	// it removes an earlier one's: the profile would replace one or go.
	if name := filepath.Base(out); traces.SamePath(filepath.Dir(out), traceDir) && (filepath.Ext(name) == ".parquet" || name == "gpu.csv") {
		return usageErrorf("calibrate: --out: %s is among the files calibrate writes to --trace-out %s: name the profile otherwise, e.g. profile.json", out, traceDir)
	}
	// The default is derived from --out: a file of that name is no
	// place for the runs, and mkdir would say only "not a directory".
	// Cleaned, as "runs/" on a file is stat'd as "not a directory" too.
	if fi, err := os.Stat(filepath.Clean(traceDir)); err == nil && !fi.IsDir() {
		return cli.Exit(fmt.Sprintf("calibrate: --trace-out: %s is a file: want a directory for the runs' traces", traceDir), 2)
	}
	return nil
}
