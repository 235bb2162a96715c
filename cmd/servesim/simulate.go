package main

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

//go:embed defaults
var defaults embed.FS

const defaultTrace = "defaults/AzureLLMInferenceTrace_conv.csv"

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:  "simulate",
		Usage: "simulate a trace under one or more plans and compare latency and cost",
		Description: "With no arguments, simulates the embedded default: the Azure 2023 conversation trace on\n" +
			"Llama-3.1-8B / one H100 under all four scheduler policies.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "trace", Usage: "trace file (any format servesim reads); default: the embedded Azure conv trace"},
			&cli.StringSliceFlag{Name: "config", Aliases: []string{"c"}, Usage: "plan TOML ([model] [batch] [device] [cost]); repeat to compare; default: the four embedded plans"},
			&cli.StringFlag{Name: "catalog", Usage: "TOML file adding or overriding model/hardware catalog entries"},
			&cli.StringFlag{Name: "out", Usage: "directory for results: one Parquet trace per plan and summary.json"},
			&cli.StringFlag{Name: "decisions", Usage: "scheduler decision log (JSONL); with several plans, one file per plan with the plan name inserted"},
			&cli.BoolFlag{Name: "no-skip", Usage: "step one iteration at a time instead of jumping over pure-decode stretches"},
			&cli.BoolFlag{Name: "json", Usage: "print the results as JSON instead of a table"},
			&cli.StringFlag{Name: "sweep", Usage: "sweep spec TOML: search the SLO capacity of every config of a cross product (see sim/sweep)"},
			&cli.IntFlag{Name: "top", Usage: "with --sweep: write the N cheapest configs meeting the SLO to OUT/candidates.json for verify"},
			&cli.StringFlag{Name: "shard", Usage: "with --sweep: run shard i/n of the configs (index mod n = i); merge with 'servesim sweep merge'"},
			&cli.IntFlag{Name: "workers", DefaultText: "GOMAXPROCS", Usage: "with --sweep: parallel simulations"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "with --sweep: no progress bar on stderr (the one-line summary stays)"},
			&cli.Float64Flag{Name: "knee-throughput-pct", DefaultText: "the spec's, else 5", Usage: "with --sweep: knee when doubling the load adds less than this % throughput"},
			&cli.Float64Flag{Name: "knee-p99-pct", DefaultText: "the spec's, else 50", Usage: "with --sweep: …and P99 TTFT or E2E grows more than this %"},
			&cli.StringFlag{Name: "profile", Usage: "calibrated profile (servesim calibrate): its coefficients replace the roofline prior, its measured KV capacity the catalog's (with --sweep: in every config); plans must run on the profile's device"},
			&cli.IntFlag{Name: "closed-loop", Usage: "simulate N clients that each send the next request when the previous one finishes (arrival times ignored), like a live closed-loop run"},
			&cli.BoolFlag{Name: "session-wait", Usage: "hold a row with a session_id until the previous row of its session has ended (finished or refused), like a live record --session-wait run; rows keep their arrival otherwise, and a row the source trace marks failed neither waits nor is waited for; with --sweep, in every config's runs (after the rate scaling; no [cluster] configs)"},
			&cli.DurationFlag{Name: "closed-loop-gap", Value: time.Millisecond, Usage: "with --closed-loop: a client's next request reaches the engine this long after its previous one ends (its latencies count from that end), and requests issued at one instant arrive this far apart (live clients never send together, and an idle engine starts its step with the first to arrive); with --session-wait: a held turn reaches the engine this long after its previous turn ends (its latencies count from that end); at most 1m"},
		},
		Action: runSimulate,
	}
}

// checkSimulateInputs refuses a missing input file of simulate, with or
// without --sweep, once the flags' values are checked.
func checkSimulateInputs(c *cli.Context) error {
	inputs := []namedPath{{"--trace", c.String("trace")}, {"--catalog", c.String("catalog")}, {"--profile", c.String("profile")}, {"--sweep", c.String("sweep")}}
	for _, p := range c.StringSlice("config") {
		inputs = append(inputs, namedPath{"--config", p})
	}
	if err := checkInputs("simulate", wantFile, inputs...); err != nil {
		return err
	}
	return checkTraceExtension("simulate", inputs[0])
}

// checkDecisionsPath is atomicfile.CheckFile, but lets a log lie in an
// --out directory out that does not exist yet: the run creates it.
func checkDecisionsPath(path, out string) error {
	if out != "" && !isDir(out) && traces.SamePath(filepath.Dir(path), out) {
		return nil
	}
	return atomicfile.CheckFile(path)
}

// namedPlan is a plan, the label it goes by in tables and file names, and
// where it came from (its file), which errors about its keys name.
type namedPlan struct {
	name string
	src  string
	plan *plan.Plan
}

func runSimulate(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("simulate: unexpected argument %q (use --trace and --config)", c.Args().First())
	}
	if c.String("sweep") != "" {
		return runSweep(c)
	}
	for _, f := range []string{"top", "shard", "workers", "knee-throughput-pct", "knee-p99-pct", "quiet"} {
		if c.IsSet(f) {
			return usageErrorf("simulate: --%s needs --sweep", f)
		}
	}
	if c.IsSet("closed-loop-gap") && !c.IsSet("closed-loop") && !c.Bool("session-wait") {
		return usageErrorf("simulate: --closed-loop-gap needs --closed-loop or --session-wait")
	}
	if c.IsSet("closed-loop") && c.Bool("session-wait") {
		return usageErrorf("simulate: --session-wait does not combine with --closed-loop: a closed loop ignores the arrivals that sessions' turns wait from")
	}
	if _, err := issueGapFlag(c, "simulate", "closed-loop-gap"); err != nil {
		return err
	}
	if n := c.Int("closed-loop"); c.IsSet("closed-loop") && n < 1 {
		return usageErrorf("simulate: --closed-loop %d: want ≥ 1 client", n)
	}
	if err := checkSimulateInputs(c); err != nil {
		return err
	}
	cat := model.DefaultCatalog()
	var catalogSHA256 string
	if p := c.String("catalog"); p != "" {
		if err := cat.LoadTOML(p); err != nil {
			return err
		}
		var err error
		if catalogSHA256, err = calibrate.FileSHA256(p); err != nil {
			return err
		}
	}
	plans, err := loadPlans(c.StringSlice("config"))
	if err != nil {
		return err
	}
	prof, err := loadProfileFlag(c)
	if err != nil {
		return err
	}
	resolved := make([]*plan.Resolved, len(plans))
	for i, p := range plans {
		if err := prof.fits(p.plan, "plan "+p.src); err != nil {
			return err
		}
		if resolved[i], err = p.plan.ResolveMeasured(cat, prof.measuredKV()); err != nil {
			return fmt.Errorf("%s: %w", p.src, err)
		}
		prof.announce("simulate", resolved[i], c.App.ErrWriter, c.App.ErrWriter)
	}
	opt := plan.Options{NoSkip: c.Bool("no-skip")}
	if prof != nil {
		opt.Step, opt.StepModel = prof.step, prof.desc
		opt.Power, opt.PowerModel = prof.power, prof.powerDesc
	}
	// Every plan is checked before any runs: a bad one later in the list
	// must not leave the earlier plans' outputs without a summary.
	for i, p := range plans {
		if r := resolved[i]; r.Plan.Clustered() && (c.String("decisions") != "" || c.IsSet("closed-loop") || c.Bool("session-wait")) {
			return usageErrorf("%s: [cluster] %s: --decisions, --closed-loop and --session-wait simulate one replica; they are not supported with a cluster plan", p.src, r.Plan.ClusterLabel())
		}
		if err := checkPlan(resolved[i], opt); err != nil {
			return fmt.Errorf("%s: %w", p.src, err)
		}
	}
	out := c.String("out")
	outs := simulateOutputs(c, plans)
	if err := checkOutputs("simulate", outs, simulateInputs(c)); err != nil {
		return err
	}
	if err := checkOutputFiles("simulate", outs); err != nil {
		return err
	}
	// A log that cannot be written would fail only once every plan has run.
	for _, p := range plans {
		if d := c.String("decisions"); d != "" {
			if err := checkDecisionsPath(decisionsPath(d, p.name, len(plans) > 1), out); err != nil {
				return usageErrorf("simulate: --decisions: %v", err)
			}
		}
	}
	in, err := openTrace(c.String("trace")) // fails now, not after the first plan's outputs
	if err != nil {
		return err
	}
	if prof.measuresContext() {
		served := make([]*plan.Plan, len(resolved))
		for i, r := range resolved {
			served[i] = r.Plan
		}
		longest, err := longestContext(in, planContextLimits(served))
		if err != nil {
			in.Close()
			return err
		}
		prof.warnContext("simulate", longest, c.App.ErrWriter)
	}
	in.Close()
	if out != "" {
		removeIfEmpty, err := makeOutDir("simulate", out)
		if err != nil {
			return err
		}
		defer removeIfEmpty() // a finished run's --out holds its files
	}
	var (
		results []*plan.Result
		outputs outputSet
	)
	defer outputs.discard()
	for i, p := range plans {
		res, err := simulateOne(c, p, resolved[i], out, len(plans) > 1, opt, prof, catalogSHA256, &outputs)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		results = append(results, res)
	}
	if out != "" {
		path, err := outputs.stage(filepath.Join(out, "summary.json"))
		if err != nil {
			return err
		}
		if err := stagedWritten(writeJSONAtomic(path, results)); err != nil {
			return err
		}
	}
	// Files renamed into place whose directory was not synced are
	// written: the results are printed, and the error returned after.
	commitErr := outputs.commit()
	if commitErr != nil && !atomicfile.OnlyNotSynced(commitErr) {
		return commitErr
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return errors.Join(enc.Encode(results), commitErr)
	}
	traceName := c.String("trace")
	if traceName == "" {
		traceName = "embedded Azure LLM inference 2023 conv trace (CC-BY-4.0, Azure/AzurePublicDataset)"
	}
	fmt.Fprintf(c.App.Writer, "trace: %s\n", traceName)
	printResults(c.App.Writer, results)
	return commitErr
}

// simulateOne runs plan p, writing its outputs under names staged in
// outputs.
func simulateOne(c *cli.Context, p namedPlan, r *plan.Resolved, outDir string, many bool, opt plan.Options, prof *profileStep, catalogSHA256 string, outputs *outputSet) (res *plan.Result, err error) {
	in, err := openTrace(c.String("trace"))
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if d := c.String("decisions"); d != "" {
		d = decisionsPath(d, p.name, many)
		path, serr := outputs.stage(d)
		if serr != nil {
			return nil, serr
		}
		f, cerr := atomicfile.Create(path)
		if cerr != nil {
			return nil, cerr
		}
		opt.Decisions = decisionsWriter{f, d}
		// Assigns the named result: a failed run leaves no log.
		defer func() { err = stagedWritten(finishAtomic(f, err)) }()
	}
	var (
		loop *sim.ClosedLoop
		wait *sim.SessionWait
	)
	if n := c.Int("closed-loop"); n > 0 {
		loop = &sim.ClosedLoop{Clients: n, IssueGap: c.Duration("closed-loop-gap")}
	}
	if c.Bool("session-wait") {
		wait = &sim.SessionWait{IssueGap: c.Duration("closed-loop-gap")}
	}
	// The summary identifies the run as its trace does, written or not.
	meta := resultMeta(in.Meta(), r, opt, prof, catalogSHA256, loop, wait)
	defer func() {
		if res != nil {
			res.SetMeta(meta)
		}
	}()
	var w traces.Writer
	if outDir != "" {
		path, serr := outputs.stage(filepath.Join(outDir, p.name+".parquet"))
		if serr != nil {
			return nil, serr
		}
		if w, err = traces.Create(path, meta); err != nil {
			return nil, err
		}
	}
	res, err = r.SimulateArrivals(c.Context, p.name, loop, wait, in, w, opt)
	if err == nil {
		err = in.Err()
	}
	if w != nil {
		if err != nil {
			w.Abort()
		} else {
			err = stagedWritten(w.Close())
		}
	}
	return res, err
}

// decisionsWriter is a --decisions file as the simulator writes it: a
// failed write names the file, not the temporary one it is written to.
type decisionsWriter struct {
	f    *atomicfile.File
	path string
}

func (w decisionsWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		err = fmt.Errorf("--decisions: %s: %w", w.path, err)
	}
	return n, err
}

// checkPlan checks what simulating r would refuse, without running it.
func checkPlan(r *plan.Resolved, opt plan.Options) error {
	if r.Plan.Clustered() {
		cc := r.ClusterConfig(opt)
		return cc.Validate()
	}
	sc := r.SimConfig(opt)
	return sc.Validate()
}

// decisionsPath is the --decisions file of plan name: with several plans,
// the name goes before the extension.
func decisionsPath(d, name string, many bool) string {
	if !many {
		return d
	}
	ext := filepath.Ext(d)
	return strings.TrimSuffix(d, ext) + "-" + name + ext
}

// simulateInputs are the files simulate reads.
func simulateInputs(c *cli.Context) []namedPath {
	in := []namedPath{{"--trace", c.String("trace")}, {"--catalog", c.String("catalog")}, {"--profile", c.String("profile")}}
	for _, p := range c.StringSlice("config") {
		in = append(in, namedPath{"--config", p})
	}
	return in
}

// simulateOutputs are the files simulate writes.
func simulateOutputs(c *cli.Context, plans []namedPlan) []namedPath {
	var out []namedPath
	dir := c.String("out")
	if dir != "" {
		out = append(out, namedPath{"--out", filepath.Join(dir, "summary.json")})
	}
	for _, p := range plans {
		if d := c.String("decisions"); d != "" {
			out = append(out, namedPath{"--decisions", decisionsPath(d, p.name, len(plans) > 1)})
		}
		if dir != "" {
			out = append(out, namedPath{"--out", filepath.Join(dir, p.name+".parquet")})
		}
	}
	return out
}

// issueGapFlag is the duration flag named, a client's turnaround (as
// --closed-loop-gap), checked against sim.MaxIssueGap; command starts the
// error.
func issueGapFlag(c *cli.Context, command, flag string) (time.Duration, error) {
	g := c.Duration(flag)
	if g < 0 || g > sim.MaxIssueGap {
		return 0, usageErrorf("%s: --%s %v: want in [0, %v], a client's turnaround", command, flag, g, sim.MaxIssueGap)
	}
	return g, nil
}

// resultMeta is the metadata of a simulated trace (plan.ResultMeta), with
// the profile it came from (nil: none), the --catalog file's sha256 (""
// for none), the closed loop and the session waiting (nil: arrivals as
// the trace gives them).
func resultMeta(in traces.Meta, r *plan.Resolved, opt plan.Options, prof *profileStep, catalogSHA256 string, loop *sim.ClosedLoop, wait *sim.SessionWait) traces.Meta {
	stepModel := opt.StepModel
	if opt.Step == nil {
		stepModel = "roofline prior (uncalibrated)"
	}
	var path, sum string
	if prof != nil {
		path, sum = prof.path, traces.SHA256Hex(prof.sum)
	}
	meta := r.ResultMeta(in, stepModel, version, path, sum, catalogSHA256)
	plan.SetArrivalMeta(&meta, loop, wait)
	return meta
}

// openTrace opens a trace file in any format servesim reads with its own
// arrival times (sniffed: servesim files, Azure, BurstGPT, Vidur,
// Mooncake), or the embedded default when path is "". ShareGPT has none:
// it is imported first, at a chosen rate.
func openTrace(path string) (traces.Reader, error) {
	if path != "" {
		if f, err := traces.DetectFormat(path, traces.FormatAuto); err == nil && f == traces.FormatShareGPT {
			return nil, fmt.Errorf("%s: a ShareGPT file has no arrival times: import it at a rate first (servesim trace import --format sharegpt --rate R %s OUT.parquet)", path, path)
		}
		return traces.Import(path, traces.FormatAuto, traces.ImportOptions{})
	}
	data, err := defaults.ReadFile(defaultTrace)
	if err != nil {
		return nil, err
	}
	in, err := traces.NewImporter(traces.FormatAzure, bytes.NewReader(data), traces.ImportOptions{Name: "embedded:" + filepath.Base(defaultTrace)})
	if err != nil {
		return nil, err
	}
	return embeddedTrace{in, traces.DataChecksum(data)}, nil
}

// embeddedTrace is the embedded default trace with its checksum in Meta,
// as Import records a file's: runs of it and of another trace are told
// apart by their input checksums.
type embeddedTrace struct {
	traces.Reader
	sum string
}

func (r embeddedTrace) Meta() traces.Meta {
	m := r.Reader.Meta().Clone()
	m.SetChecksum(filepath.Base(defaultTrace), r.sum)
	return m
}

// loadPlans reads the named plan files, or the embedded default plans.
func loadPlans(paths []string) ([]namedPlan, error) {
	var out []namedPlan
	if len(paths) == 0 {
		names, err := fs.Glob(defaults, "defaults/*.toml")
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
		for _, n := range names {
			data, _ := defaults.ReadFile(n)
			p, err := plan.Parse(data)
			if err != nil {
				return nil, fmt.Errorf("embedded %s: %w", n, err)
			}
			out = append(out, namedPlan{name: p.Batch.Strategy, src: "embedded " + n, plan: p})
		}
		return out, nil
	}
	seen := map[string]bool{}
	for _, path := range paths {
		p, err := plan.Load(path)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if seen[name] {
			return nil, usageErrorf("simulate: --config %s: another plan is already named %q (plans are named by their file names)", path, name)
		}
		seen[name] = true
		out = append(out, namedPlan{name: name, src: path, plan: p})
	}
	return out, nil
}

// printResults writes the comparison table and each plan's cost factors.
// What was not measured (no completed requests, no output tokens) prints
// as "—", never as a zero.
func printResults(w io.Writer, results []*plan.Result) {
	tw := newTable(w, "plan", "policy", "batch limit", "done", "mean TTFT", "P99 TTFT", "mean E2E", "mean queue",
		"total tokens", "device-s", "$/1M out (est.)")
	for _, r := range results {
		s := r.Summary
		tw.row(r.Name, r.Plan.Batch.Strategy, r.Plan.BatchLimit(),
			fmt.Sprintf("%d/%d", s.Completed, s.Requests),
			dist(s.TTFT, s.TTFT.Mean), dist(s.TTFT, s.TTFT.P99), dist(s.E2E, s.E2E.Mean), dist(s.Queue, s.Queue.Mean),
			fmt.Sprint(s.InputTokens+s.OutputTokens), numfmt.Fixed(s.DeviceSeconds, 0),
			perM(r.Cost.PerMOutputUSD, s.OutputTokens))
	}
	tw.flush()
	for _, r := range results {
		s, c := r.Summary, r.Cost
		fmt.Fprintf(w, "\n%s — step model: %s; outcome: %s\n", r.Name, r.StepModel, r.Outcome)
		// kWh to 3 significant digits: a run of a few minutes holds well
		// under 0.1 kWh, which one decimal would print as 0.0.
		fmt.Fprintf(w, "  hardware:     %s (%s device-s)   energy: %s (%.3g kWh × PUE)\n",
			numfmt.USD(c.HardwareUSD), numfmt.Fixed(c.DeviceSeconds, 0), numfmt.USD(c.EnergyUSD), s.EnergyJoules/3.6e6)
		if r.PowerModel != "" {
			fmt.Fprintf(w, "  power model:  %s\n", r.PowerModel)
		}
		kvMean := "—" // a time mean over no time is no figure
		if s.Makespan > 0 {
			kvMean = numfmt.Pct(s.KV.MeanUtil)
		}
		fmt.Fprintf(w, "  memory:       %d KV blocks, mean %s / max %s used, %d preemptions, %d rejected\n",
			s.KV.TotalBlocks, kvMean, numfmt.Pct(s.KV.MaxUtil), s.Preemptions, s.Rejected)
		if r.Plan.Batch.PrefixCaching {
			hit := "—" // nothing looked up
			if s.PrefixLookups > 0 {
				hit = fmt.Sprintf("%.1f%%", 100*s.PrefixHitRate)
			}
			fmt.Fprintf(w, "  prefix cache: %s of prompt blocks hit (%d of %d looked up)\n", hit, s.PrefixHits, s.PrefixLookups)
		}
		fmt.Fprintf(w, "  batching:     %s\n", batchingLine(s))
		fmt.Fprintf(w, "  latency:      TTFT p50/p99 %s/%s, TPOT p50/p99 %s/%s, E2E p99 %s\n",
			dist(s.TTFT, s.TTFT.P50), dist(s.TTFT, s.TTFT.P99), dist(s.TPOT, s.TPOT.P50), dist(s.TPOT, s.TPOT.P99), dist(s.E2E, s.E2E.P99))
		fmt.Fprintf(w, "  cost (estimated: device-seconds × $/h + energy): %s per 1M output tokens, %s per 1M total tokens\n",
			perM(c.PerMOutputUSD, s.OutputTokens), perM(c.PerMTotalUSD, s.InputTokens+s.OutputTokens))
		if c.HasBilled {
			fmt.Fprintf(w, "  cost (billed: API per-token prices): %s per 1M output tokens\n", perM(c.BilledPerMOutputUSD, s.OutputTokens))
		}
	}
}

// dist formats v, a statistic of d, or "—" when d holds no samples.
func dist(d sim.Dist, v float64) string {
	if d.N == 0 {
		return "—"
	}
	return numfmt.Secs(v)
}

// perM formats a per-million-token price as the report does, or "—"
// without tokens to divide by.
func perM(v float64, tokens int64) string {
	if tokens == 0 {
		return "—"
	}
	return numfmt.USD(v)
}

// batchingLine is a run's rates and busy time. Rates over a window of no
// length, or one in which nothing completed (a cluster held to an OOM),
// are no figures, as summary.json writes them null.
func batchingLine(s *sim.Summary) string {
	switch {
	case s.Makespan <= 0:
		return "— (no time elapsed: nothing ran)"
	case s.Completed == 0:
		return "— output tok/s, — req/s (nothing completed), device busy " + numfmt.Pct(s.Utilization)
	}
	return fmt.Sprintf("%s output tok/s, %s req/s, device busy %s", numfmt.Fixed(s.OutputTokPerSec, 0), numfmt.Fixed(s.ReqPerSec, 1), numfmt.Pct(s.Utilization))
}
