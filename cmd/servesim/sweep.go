package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/dirmatch"
	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
	"github.com/urfave/cli/v2"
)

// sweepCommand is `servesim sweep`: tools for sweep results. The sweep
// itself runs with `servesim simulate --sweep SPEC`.
func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:   "sweep",
		Usage:  "work with sweep results (run a sweep with 'simulate --sweep')",
		Action: groupHelpOrUnknown,
		Subcommands: []*cli.Command{{
			Name:      "merge",
			Usage:     "merge the shard results of one sweep into one results file",
			ArgsUsage: "OUT.parquet SHARD.parquet...",
			Description: "Checks that the shards come from the same spec, trace and settings and that together\n" +
				"they hold every config exactly once, re-ranks and recomputes the Pareto fronts. The merged\n" +
				"file equals the results of the same sweep run unsharded.",
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "top", Usage: "also write the N cheapest configs meeting the SLO to candidates.json beside OUT"},
			},
			Action: runSweepMerge,
		}},
	}
}

func runSweepMerge(c *cli.Context) error {
	if err := flagsFirst("sweep merge", c.Args().Slice()); err != nil {
		return err
	}
	if c.NArg() < 2 {
		return usageErrorf("sweep merge: want OUT.parquet and at least one shard file, got %d arguments", c.NArg())
	}
	if n := c.Int("top"); n < 0 {
		return usageErrorf("sweep merge: --top %d: want ≥ 0", n)
	}
	out := c.Args().First()
	if ext := filepath.Ext(out); !strings.EqualFold(ext, ".parquet") {
		return usageErrorf("sweep merge: OUT: %s: want a .parquet file (sweep results are Parquet), got extension %q", out, ext)
	}
	var shards []namedPath
	for _, s := range c.Args().Tail() {
		shards = append(shards, namedPath{"SHARD", s})
	}
	if err := checkOutputs("sweep merge", []namedPath{{"OUT", out}}, shards); err != nil {
		return err
	}
	// A directory, or a missing one, would fail only the rename after the merge.
	if err := atomicfile.CheckFile(out); err != nil {
		return usageErrorf("sweep merge: OUT: %v", err)
	}
	candidates := filepath.Join(filepath.Dir(out), "candidates.json")
	if err := checkOutputFiles("sweep merge", []namedPath{{"OUT", candidates}}); err != nil {
		return err
	}
	if err := checkInputs("sweep merge", wantFile, shards...); err != nil {
		return err
	}
	res, err := sweep.MergeFiles(c.Args().Tail())
	if err != nil {
		return err
	}
	if err := checkMergeOver(out, c.Args().Tail(), res.Meta); err != nil {
		return err
	}
	// main catches the first interrupt: a merge that ignored it would
	// publish its file and exit 0.
	if err := c.Context.Err(); err != nil {
		return fmt.Errorf("sweep merge: interrupted, %s not written: %w", out, err)
	}
	// Results renamed into place whose directory was not synced are
	// written: they are printed, and the error returned after.
	writeErr := writeSweep(c.App.ErrWriter, out, candidates, res, c.Int("top"))
	if writeErr != nil && !atomicfile.OnlyNotSynced(writeErr) {
		return writeErr
	}
	warnSweepBeside(c.App.ErrWriter, out, candidates, c.Int("top"))
	fmt.Fprintf(c.App.Writer, "merged %d shards: %d configs → %s\n", c.NArg()-1, len(res.Rows), out)
	printSweep(c.App.Writer, res, 20)
	return writeErr
}

// warnSweepBeside warns when OUT is not its folder's sweep.parquet but one
// lies beside it: the candidates.json the merge wrote (or removed) there
// ranks OUT, and a reader of the folder pairs it with that sweep.parquet.
func warnSweepBeside(log io.Writer, out, candidates string, top int) {
	whole := filepath.Join(filepath.Dir(out), (sweep.Shard{}).FileName())
	if sameFile(out, whole) {
		return
	}
	if _, err := os.Stat(whole); err != nil {
		return
	}
	if top > 0 {
		fmt.Fprintf(log, "warning: %s ranks %s, not the %s beside it; merge into %s to keep the folder one sweep's\n",
			candidates, out, whole, whole)
		return
	}
	fmt.Fprintf(log, "warning: %s beside %s has no %s now (a merge without --top removes it); merge into %s to keep the folder one sweep's\n",
		whole, out, candidates, whole)
}

// sameFile reports whether paths a and b name one file by their absolute
// paths (neither need exist).
func sameFile(a, b string) bool {
	pa, errA := filepath.Abs(a)
	pb, errB := filepath.Abs(b)
	return errA == nil && errB == nil && pa == pb
}

// checkMergeOver refuses a merge into a folder's sweep.parquet that holds
// another sweep's results while one of the shards lies beside it. A shard
// run removes that file, so it was written after the shard: by an
// unsharded run, whose results the older shards would replace.
func checkMergeOver(out string, shards []string, merged sweep.Meta) error {
	if filepath.Base(out) != (sweep.Shard{}).FileName() {
		return nil
	}
	beside := ""
	for _, s := range shards {
		if sameDir(s, out) {
			beside = s
			break
		}
	}
	if beside == "" {
		return nil
	}
	prev, err := sweep.ReadFile(out)
	if err != nil { // missing, or not sweep results: nothing of a sweep's to keep
		return nil
	}
	if d := sweep.Differs(prev.Meta, merged); d != "" {
		return fmt.Errorf("sweep merge: %s holds the results of a later sweep than the shards beside it (%s is of %s): "+
			"remove the earlier sweep's shards, or merge them into another OUT", out, beside, d)
	}
	return nil
}

// sameDir reports whether paths a and b lie in one folder.
func sameDir(a, b string) bool {
	da, errA := filepath.Abs(filepath.Dir(a))
	db, errB := filepath.Abs(filepath.Dir(b))
	return errA == nil && errB == nil && da == db
}

// sweepSessionWait is the session waiting --session-wait and
// --closed-loop-gap ask a sweep for, as for one config; nil without
// --session-wait.
func sweepSessionWait(c *cli.Context) (*sim.SessionWait, error) {
	if !c.Bool("session-wait") {
		if c.IsSet("closed-loop-gap") {
			return nil, usageErrorf("simulate: --closed-loop-gap with --sweep needs --session-wait (a sweep runs no closed loop)")
		}
		return nil, nil
	}
	g, err := issueGapFlag(c, "simulate", "closed-loop-gap")
	if err != nil {
		return nil, err
	}
	return &sim.SessionWait{IssueGap: g}, nil
}

// runSweep is `simulate --sweep SPEC`.
func runSweep(c *cli.Context) error {
	for _, f := range []string{"config", "decisions", "no-skip", "json", "closed-loop"} {
		if c.IsSet(f) {
			return usageErrorf("simulate: --%s does not combine with --sweep", f)
		}
	}
	wait, err := sweepSessionWait(c)
	if err != nil {
		return err
	}
	shard, err := sweep.ParseShard(c.String("shard"))
	if err != nil {
		return usageErrorf("simulate: --%v", err)
	}
	out := c.String("out")
	if shard.Count > 1 && out == "" {
		return usageErrorf("simulate: --shard needs --out for the shard's results")
	}
	if c.Int("top") > 0 && out == "" {
		return usageErrorf("simulate: --top writes OUT/candidates.json: it needs --out")
	}
	if n := c.Int("top"); n < 0 {
		return usageErrorf("simulate: --top %d: want ≥ 0", n)
	}
	if n := c.Int("workers"); n < 0 {
		return usageErrorf("simulate: --workers %d: want ≥ 0 (0 = GOMAXPROCS)", n)
	}
	if out != "" {
		outs := []namedPath{{"--out", filepath.Join(out, shard.FileName())}, {"--out", filepath.Join(out, "candidates.json")}}
		if shard.Count > 1 { // a shard removes the whole sweep's results from OUT
			outs = append(outs, namedPath{"--out", filepath.Join(out, sweep.Shard{}.FileName())})
		}
		ins := []namedPath{{"--trace", c.String("trace")}, {"--sweep", c.String("sweep")}, {"--catalog", c.String("catalog")}, {"--profile", c.String("profile")}}
		if err := checkOutputs("simulate", outs, ins); err != nil {
			return err
		}
		if err := checkOutputFiles("simulate", outs); err != nil {
			return err
		}
	}
	if c.Int("top") > 0 && shard.Count > 1 {
		return usageErrorf("simulate: --top ranks the whole sweep: give it to 'servesim sweep merge'")
	}
	for _, f := range []string{"knee-throughput-pct", "knee-p99-pct"} {
		if v := c.Float64(f); c.IsSet(f) && (!(v > 0) || math.IsInf(v, 0)) {
			return usageErrorf("simulate: --%s %g: want a finite number > 0", f, v)
		}
	}
	if err := checkSimulateInputs(c); err != nil {
		return err
	}
	cat := model.DefaultCatalog()
	// The build too: another one may simulate the same config otherwise.
	settings := []string{"tool_version=" + c.App.Version}
	if p := c.String("catalog"); p != "" {
		if err := cat.LoadTOML(p); err != nil {
			return err
		}
		sum, err := calibrate.FileSHA256(p)
		if err != nil {
			return err
		}
		settings = append(settings, "catalog_sha256="+sum)
	}
	spec, err := sweep.LoadSpec(c.String("sweep"))
	if err != nil {
		return err
	}
	if c.IsSet("knee-throughput-pct") {
		spec.Search.KneeThroughputPct = c.Float64("knee-throughput-pct")
	}
	if c.IsSet("knee-p99-pct") {
		spec.Search.KneeP99Pct = c.Float64("knee-p99-pct")
	}
	if wait != nil { // held turns change every figure; verify reads it
		settings = append(settings, "session_wait="+wait.IssueGap.String())
	}
	settings = append(settings,
		"knee_throughput_pct="+strconv.FormatFloat(spec.Search.KneeThroughputPct, 'g', -1, 64),
		"knee_p99_pct="+strconv.FormatFloat(spec.Search.KneeP99Pct, 'g', -1, 64))
	prof, err := loadProfileFlag(c)
	if err != nil {
		return err
	}
	// A big sweep builds its configs for minutes before the progress bar
	// starts. A spec past the limit is left to Expand to refuse.
	if n, err := spec.Size(); err == nil {
		fmt.Fprintf(c.App.ErrWriter, "sweep: building %s of %s to simulate\n", numfmt.Count(n, "config"), spec.Path)
	}
	ex, err := sweep.ExpandMeasured(spec, cat, prof.measuredKV())
	if err != nil {
		return err
	}
	for _, cfg := range ex.Configs {
		if cfg.Resolved != nil {
			if err := prof.fits(cfg.Plan, fmt.Sprintf("config %d (%s) of %s", cfg.Index, cfg.Label, spec.Path)); err != nil {
				return err
			}
			prof.announce("sweep", cfg.Resolved, c.App.ErrWriter, io.Discard) // the KV raises are counted below
		}
	}
	var step sim.StepTimer
	var power func(float64) float64
	if prof != nil {
		settings = append(settings, "profile_sha256="+traces.SHA256Hex(prof.sum))
		step = prof.step
		fmt.Fprintf(c.App.ErrWriter, "sweep: step model from %s\n", prof.desc)
		// Which power model priced the energy: the profile's fit, or the
		// catalog's figures as without a profile.
		if power = prof.power; power != nil {
			settings = append(settings, "power=profile")
			fmt.Fprintf(c.App.ErrWriter, "sweep: power model from %s\n", prof.powerDesc)
		} else {
			settings = append(settings, "power=catalog")
		}
		if prof.raised > 0 {
			fmt.Fprintf(c.App.ErrWriter, "sweep: the profile's measured KV tokens raised the capacity of %d configs\n", prof.raised)
		}
		if prof.reported > 0 {
			fmt.Fprintf(c.App.ErrWriter, "sweep: the KV capacity the engine reported set the capacity of %d configs\n", prof.reported)
		}
	}
	in, err := openTrace(c.String("trace"))
	if err != nil {
		return err
	}
	name := c.String("trace")
	if name == "" {
		name = "embedded:" + filepath.Base(defaultTrace)
	}
	tr, err := sweep.LoadTrace(filepath.Base(name), in)
	in.Close()
	if err != nil {
		return err
	}
	if note := sweep.FewRequestsForP99(spec.SLO, tr); note != "" {
		fmt.Fprintf(c.App.ErrWriter, "warning: %s\n", note)
	}
	if prof.measuresContext() {
		var served []*plan.Plan
		for _, cfg := range ex.Configs {
			if cfg.Resolved != nil {
				served = append(served, cfg.Resolved.Plan)
			}
		}
		limits := planContextLimits(served)
		var longest int64
		for i := range tr.Reqs {
			longest = longestServed(longest, &tr.Reqs[i], limits)
		}
		prof.warnContext("sweep", longest, c.App.ErrWriter)
	}
	if out != "" {
		removeIfEmpty, err := makeOutDir("simulate", out)
		if err != nil {
			return err
		}
		defer removeIfEmpty() // a finished run's --out holds its files
	}
	opt := sweep.Options{Workers: c.Int("workers"), Shard: shard, Settings: strings.Join(settings, " "), Step: step, Power: power, SessionWait: wait}
	errw := c.App.ErrWriter
	if errw == nil {
		errw = os.Stderr
	}
	if !c.Bool("quiet") && isTerminal(errw) {
		opt.Progress = newProgress(errw).update
	}
	if os.Getenv("GOGC") == "" {
		// Every probe allocates a few MB that die with it; collecting less
		// often saves about a tenth of a sweep's CPU time.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	start := time.Now()
	res, err := sweep.Run(c.Context, spec, ex, tr, opt)
	if errors.Is(err, sweep.ErrSessionWaitCluster) { // as simulate refuses a cluster plan
		return usageErrorf("simulate: --session-wait: %v", err)
	}
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	// Results renamed into place whose directory was not synced are
	// written: they are printed, and the error returned after.
	var writeErr error
	if out != "" {
		candidates := filepath.Join(out, "candidates.json")
		if shard.Count > 1 {
			candidates = ""
		}
		writeErr = writeSweep(errw, filepath.Join(out, shard.FileName()), candidates, res, c.Int("top"))
		if writeErr != nil && !atomicfile.OnlyNotSynced(writeErr) {
			return writeErr
		}
		if shard.Count > 1 {
			if err := removeWholeSweep(errw, out); err != nil {
				return err
			}
		} else {
			warnShardsLeft(errw, out)
		}
	}
	// --quiet leaves this line: one line, not the redrawn progress bar.
	printSweepRun(errw, res, elapsed, opt.EffectiveWorkers())
	// The rate is not measured (NaN) when every request arrives at once.
	// It leaves warm-up rows out, and so does the count beside it.
	warmup := 0
	for _, r := range tr.Reqs {
		if r.Warmup {
			warmup++
		}
	}
	apart := ""
	if warmup > 0 {
		apart = fmt.Sprintf(", and %d warm-up requests", warmup)
	}
	fmt.Fprintf(c.App.Writer, "trace: %s (%d requests, %s req/s at scale 1%s)\n", name, len(tr.Reqs)-warmup, numfmt.Fixed(tr.Rate, 2), apart)
	printSweepSessionWait(c.App.Writer, wait, tr)
	printSweep(c.App.Writer, res, 20)
	return writeErr
}

// printSweepSessionWait says how --session-wait sent the trace's turns,
// as simulate --session-wait names it beside a run's step model.
func printSweepSessionWait(w io.Writer, wait *sim.SessionWait, tr *sweep.Trace) {
	switch {
	case wait == nil:
	case !tr.Chained:
		fmt.Fprintln(w, "session wait: no turn held: no session of the trace has two turns sent")
	default:
		fmt.Fprintf(w, "session wait: each session's turns held until the previous one ended, then a %v turnaround\n", wait.IssueGap)
	}
}

// printSweepRun writes how long the sweep's simulations took and on how
// many workers.
func printSweepRun(w io.Writer, res *sweep.Results, elapsed time.Duration, maxWorkers int) {
	var probes int64
	ran := 0
	for _, r := range res.Rows {
		probes += r.Probes
		if r.Outcome != sweep.OutcomeSkipped {
			ran++
		}
	}
	// sweep.Run starts at most one worker per config it runs
	workers := max(1, min(maxWorkers, ran))
	per := "—"
	if probes > 0 {
		per = (elapsed * time.Duration(workers) / time.Duration(probes)).Round(10 * time.Microsecond).String()
	}
	fmt.Fprintf(w, "sweep: %d configs, %d simulations in %s on %d workers (%s of a worker per simulation)\n",
		len(res.Rows), probes, elapsed.Round(time.Millisecond), workers, per)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress draws "\r"-updated progress with an ETA, at most 5 times a
// second.
type progress struct {
	w     io.Writer
	start time.Time
	last  time.Time
}

func newProgress(w io.Writer) *progress { return &progress{w: w, start: time.Now()} }

func (p *progress) update(done, total int) {
	now := time.Now()
	if done < total && done > 0 && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	frac := 1.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	bar := strings.Repeat("=", int(frac*width)) + strings.Repeat(" ", width-int(frac*width))
	eta := "—"
	if done > 0 && done < total {
		el := now.Sub(p.start)
		eta = (time.Duration(float64(el) * float64(total-done) / float64(done))).Round(time.Second).String()
	} else if done == total {
		eta = now.Sub(p.start).Round(time.Second).String() + " total"
	}
	fmt.Fprintf(p.w, "\rsweep [%s] %d/%d %3.0f%%  ETA %s   ", bar, done, total, 100*frac, eta)
	if done == total {
		fmt.Fprintln(p.w)
	}
}

// writeSweep publishes a sweep's results and, with top > 0, its top
// candidates together. Without top a candidates file left beside them by
// an earlier sweep is removed: it ranks other results, and verify would
// take it for these. A shard (candidates "") writes its results alone.
func writeSweep(log io.Writer, results, candidates string, res *sweep.Results, top int) error {
	var set outputSet
	defer set.discard()
	tmp, err := set.stage(results)
	if err != nil {
		return err
	}
	if err := stagedWritten(sweep.WriteFile(tmp, res)); err != nil {
		return err
	}
	if top > 0 {
		tmp, err := set.stage(candidates)
		if err != nil {
			return err
		}
		if err := stagedWritten(sweep.WriteCandidates(tmp, res, top)); err != nil {
			return err
		}
	}
	// Files renamed into place whose directory was not synced are written:
	// an earlier sweep's candidates are removed all the same.
	err = set.commit()
	if err != nil && !atomicfile.OnlyNotSynced(err) {
		return err
	}
	// Said once the file is in place: a file not written holds nothing.
	if top > 0 {
		if note := cappedPastNote(sweep.CappedPast(res.Rows, top), "them"); note != "" {
			fmt.Fprintf(log, "note: %s holds --top %d by cost at the SLO; %s\n", filepath.Base(candidates), top, note)
		}
	}
	if top == 0 && candidates != "" {
		return errors.Join(err, removeStale(log, candidates, "an earlier sweep's candidates (--top N writes this one's)"))
	}
	return err
}

// removeWholeSweep removes from a shard's out the results and candidates
// an earlier unsharded sweep left there: they rank other results, and
// verify or report would take them for this sweep's. 'sweep merge'
// writes the whole sweep's.
func removeWholeSweep(log io.Writer, out string) error {
	if err := removeStale(log, filepath.Join(out, sweep.Shard{}.FileName()), "an earlier sweep's results ('sweep merge' writes this one's)"); err != nil {
		return err
	}
	return removeStale(log, filepath.Join(out, "candidates.json"), "an earlier sweep's candidates ('sweep merge --top N' writes this one's)")
}

// warnShardsLeft warns of shard files an earlier sharded sweep left in
// out. They are left: a shard run may still be writing there, and merge
// refuses them over this sweep's results.
func warnShardsLeft(log io.Writer, out string) {
	left := shardFilesIn(out)
	if len(left) == 0 {
		return
	}
	named := strings.Join(left[:min(len(left), 3)], ", ")
	if len(left) > 3 {
		named += ", …"
	}
	fmt.Fprintf(log, "warning: %s holds %d shard files of another sweep run (%s): they are not this sweep's results\n",
		out, len(left), named)
}

// shardFilesIn lists the shard files in dir by name; a folder that
// cannot be read holds none to warn of.
func shardFilesIn(dir string) []string {
	files, _ := dirmatch.Files(dir, "sweep-shard-*-of-*.parquet")
	return files
}

// removeStale removes path, an earlier run's output that would be taken
// for this one's, and says so; a path already gone is not an error.
func removeStale(log io.Writer, path, what string) error {
	switch err := os.Remove(path); {
	case err == nil:
		fmt.Fprintf(log, "removed %s, %s\n", path, what)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return nil
}

// printSweep writes the outcome counts and the top configs by cost.
func printSweep(w io.Writer, res *sweep.Results, top int) {
	outcomes, skips := sweep.Counts(res.Rows)
	fmt.Fprintf(w, "sweep: %s (sha256 %.12s), shard %s: %d of %d configs; ok %d, infeasible %d, slo_violated %d, error %d, skipped %d",
		res.Meta.SpecName, res.Meta.SpecSHA256, res.Meta.Shard, len(res.Rows), res.Meta.TotalConfigs,
		outcomes[sweep.OutcomeOK], outcomes[sweep.OutcomeInfeasible], outcomes[sweep.OutcomeSLOViolated], outcomes[sweep.OutcomeError], outcomes[sweep.OutcomeSkipped])
	if len(skips) > 0 {
		var parts []string
		for _, k := range []string{sweep.SkipIf, sweep.SkipMaxDevices, sweep.SkipWeights, sweep.SkipKVTooSmall, sweep.SkipInvalid} {
			if n := skips[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", k, n))
			}
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
	rows := sweep.Top(res.Rows, top)
	if len(rows) == 0 {
		fmt.Fprintln(w, "no config met the SLO")
		return
	}
	billed := false
	for _, r := range rows {
		billed = billed || finiteF(r.USDPerMOutBilled)
	}
	head := []string{"rank", "config", "device", "scale", "req/s", "goodput tok/s", "P99 TTFT", "P99 TPOT", "P99 E2E", "$/1M out (est.)"}
	if billed {
		head = append(head, "$/1M out (billed)")
	}
	head = append(head, "tail penalty", "knee", "pareto")
	tw := newTable(w, head...)
	for _, r := range rows {
		pareto := ""
		if r.ParetoLatency {
			pareto += "L"
		}
		if r.ParetoThroughput {
			pareto += "T"
		}
		device := fmt.Sprintf("%d× %s %s", r.DeviceCount, r.Device, r.Precision)
		if r.Replicas > 1 {
			device += fmt.Sprintf(", %d replicas", r.Replicas)
		}
		cells := []string{strconv.FormatInt(r.Rank, 10), r.Label, device,
			sweepScale(r), belowCapacity(r, numfmt.Fixed(r.ReqPerSec, 2)), belowCapacity(r, numfmt.Fixed(r.GoodputOutTokPerSec, 0)),
			numfmt.Secs(r.TTFTP99), numfmt.Secs(r.TPOTP99), numfmt.Secs(r.E2EP99), atCapacity(r, numfmt.USD(r.USDPerMOutEst))}
		if billed {
			cells = append(cells, numfmt.USD(r.USDPerMOutBilled))
		}
		cells = append(cells, atCapacity(r, numfmt.SignedPct(r.TailPenalty)), fmtF(r.KneeScale, "%.3g"), pareto)
		tw.row(cells...)
	}
	tw.flush()
	if note := cappedPastNote(sweep.CappedPast(res.Rows, len(rows)), "those shown"); note != "" {
		fmt.Fprintln(w, "note: "+note)
	}
}

// cappedPastNoteNames is how many capped configs cappedPastNote names
// before it counts the rest, as the report's captions do.
const cappedPastNoteNames = 8

// cappedPastNote names the capped configs ranked past a cut (see
// sweep.CappedPast): ranked by a cost that is an upper bound, each may
// cost less at its true capacity than those kept (named by kept). ""
// when none.
func cappedPastNote(capped []*sweep.Row, kept string) string {
	if len(capped) == 0 {
		return ""
	}
	var names []string
	for _, r := range capped[:min(len(capped), cappedPastNoteNames)] {
		names = append(names, fmt.Sprintf("#%d (%s)", r.Rank, r.Label))
	}
	if more := len(capped) - len(names); more > 0 {
		names = append(names, fmt.Sprintf("%d more", more))
	}
	it, each := "its", "it"
	if len(capped) > 1 {
		it, each = "their", "them"
	}
	return fmt.Sprintf("capped %s, ranked past %s by the cost at the search's limit, may cost less at %s true capacity; raise search.max_scale (or search.max_probes) to rank %s",
		strings.Join(names, ", "), kept, it, each)
}

// sweepScale is a row's scale, marked ≥ where it is a lower bound on the
// capacity (the SLO never broke within the search).
func sweepScale(r *sweep.Row) string {
	s := fmtF(r.Scale, "%.3g")
	if r.CapacityLowerBound() && finiteF(r.Scale) {
		s = "≥" + s
	}
	return s
}

// belowCapacity marks a figure taken at a row's capacity that rises
// with the load (req/s, goodput) where that capacity is a lower bound.
func belowCapacity(r *sweep.Row, cell string) string {
	if r.CapacityLowerBound() {
		return numfmt.AtLeast(cell)
	}
	return cell
}

// atCapacity marks a figure taken at a row's capacity that falls as the
// load rises (the cost per token at the SLO, the tail penalty) where that
// capacity is a lower bound.
func atCapacity(r *sweep.Row, cell string) string {
	if r.CapacityLowerBound() {
		return numfmt.AtMost(cell)
	}
	return cell
}

func finiteF(v float64) bool { return v == v && v-v == 0 }

func fmtF(v float64, format string) string {
	if !finiteF(v) {
		return "—"
	}
	return fmt.Sprintf(format, v)
}
