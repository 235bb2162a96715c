package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/traces"
	"github.com/urfave/cli/v2"
)

// exitRegression is compare's exit status when a regression is flagged.
const exitRegression = 3

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare two runs and flag regressions (exit status 3)",
		ArgsUsage: "A B",
		Description: "A is the baseline, B the new run. Each is a simulate --out directory or summary.json, a per-request\n" +
			"trace (simulated or live), or a sweep results file. When the input holds several runs or configs, name one\n" +
			"with PATH#NAME (a plan name, a sweep row's label, #N or rank=N for the rank the report shows as #N, or\n" +
			"index=N; PATH##1 or PATH#rank=1 is rank 1, PATH#1 a plan or label named 1) or --a / --b.\n" +
			"Metrics from traces are computed from successful, non-warm-up rows; failures are counted separately.\n" +
			"A regression is a P99 latency, a cost, device-seconds or the failure share rising, or throughput falling,\n" +
			"by more than --threshold, or a sweep config that had a result having none; any regression makes the exit status 3.\n" +
			"A metric unknown on either side is not gated: a trace carries no prices, so between two traces the\n" +
			"$/1M output costs show as not measured and device-seconds is the cost figure gated. When either run is live, each latency's change\n" +
			"gets a 95% bootstrap interval over the runs' requests (a P99 needs 1,000 requests a run, a median 20, a\n" +
			"mean 10; a P99 of fewer is judged by the interval of the highest quantile that has ten beyond it, the P95 of 200,\n" +
			"and a run of under 20 requests shows \"too few requests\", never flagged), and a change whose interval holds\n" +
			"no change is shown as within noise and never flagged. Between two\n" +
			"per-request traces, throughput and goodput get one too, over equal slices of each run's window (10 successes a\n" +
			"run, counted from its first completion on), except between two open-loop\n" +
			"replays of one schedule (the same input, workload, in-flight cap, session wait and request count): they share its\n" +
			"arrivals, so their throughput shows \"same schedule: no interval\" and --threshold alone gates it, and their\n" +
			"latencies' intervals resample the requests in pairs (one request in A and in B together; a request failed\n" +
			"in one run is left out of that run's figure only). The failure share gets one from the runs' request counts.\n" +
			"Device-seconds gets none: --threshold alone gates it, so set it above the spread that repeated live\n" +
			"runs show. Blocks of requests are resampled, as long as a run's bursts (at least n^⅓); a run holding few\n" +
			"bursts gets intervals that cover less than 95%.\n" +
			"--slo adds goodput, the successes within every limit a second, for each run with a per-request trace;\n" +
			"it is gated like throughput. With no such trace on either side it counts nothing, and a note says so.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "threshold", Value: "10%", Usage: "relative change that counts as a regression, a percentage: 10% (or 10), 2.5%; a bare number under 1, such as 0.1, is refused as ambiguous"},
			&cli.StringFlag{Name: "a", Usage: "which run or config of A (plan name, sweep label, #N or rank=N, index=N)"},
			&cli.StringFlag{Name: "b", Usage: "which run or config of B"},
			&cli.StringFlag{Name: "slo", Usage: "per-request limits for goodput, e.g. ttft=2s,tpot=50ms,e2e=30s"},
		},
		Action: runCompare,
	}
}

func runCompare(c *cli.Context) error {
	args, flags, err := splitArgs(c, "threshold", "a", "b", "slo")
	if err != nil {
		return err
	}
	if len(args) != 2 {
		return usageErrorf("compare: want two runs, A and B, got %s", numfmt.Count(len(args), "argument"))
	}
	thr, err := parseThreshold(flags["threshold"])
	if err != nil {
		return err
	}
	slo, err := sloFlag("compare", flags)
	if err != nil {
		return err
	}
	// Both paths are checked before either is loaded.
	pathA, selA, err := runArg("A", args[0], flags["a"])
	if err != nil {
		return err
	}
	pathB, selB, err := runArg("B", args[1], flags["b"])
	if err != nil {
		return err
	}
	a, err := selectRun(c.Context, pathA, selA, slo)
	if err != nil {
		return err
	}
	b, err := selectRun(c.Context, pathB, selB, slo)
	if err != nil {
		return err
	}
	if !slo.IsZero() && a.SLO.IsZero() && b.SLO.IsZero() {
		// goodput needs a per-request trace; the flag is noted, not refused,
		// so that the rest of the comparison still shows
		fmt.Fprintf(c.App.ErrWriter, "compare: note: --slo %s counts nothing: neither A nor B has a per-request trace "+
			"(a sweep row's goodput is against its sweep's SLO; a summary.json needs its plans' traces beside it)\n", slo)
	}
	cs, err := report.Compare(c.Context, a, b, thr)
	if err != nil { // interrupted while drawing the intervals
		return fmt.Errorf("compare: %w", err)
	}
	if err := report.WriteComparison(c.App.Writer, a, b, cs, thr); err != nil {
		return err
	}
	if n := report.Regressions(cs); n > 0 {
		return cli.Exit(regressionsMessage(n, thr), exitRegression)
	}
	return nil
}

// regressionsMessage is compare's exit message for n regressions.
func regressionsMessage(n int, thr float64) string {
	return "compare: " + numfmt.Count(n, "regression") + " beyond " + report.ThresholdPct(thr)
}

// runArg splits the argument name, PATH or PATH#NAME, into the path and
// the run it selects (sel, from --a/--b, unless the argument names one);
// a path that does not exist is a usage error.
func runArg(name, arg, sel string) (path, run string, err error) {
	path = arg
	if _, err := os.Stat(arg); err != nil {
		// split at the '#' that ends an existing path (a folder's name may
		// hold one), else at the first
		cut := strings.Index(arg, "#")
		for i := strings.LastIndex(arg, "#"); i > 0; i = strings.LastIndex(arg[:i], "#") {
			if _, err := os.Stat(arg[:i]); err == nil {
				cut = i
				break
			}
		}
		if cut >= 0 {
			p, s := arg[:cut], arg[cut+1:]
			if sel != "" && sel != s {
				return "", "", usageErrorf("compare: %s names %q, and --a/--b %q: want one", arg, s, sel)
			}
			path, sel = p, s
		}
	}
	if err := checkInputs("compare", wantFileOrDir, namedPath{name, path}); err != nil {
		return "", "", err
	}
	if err := checkResultsTrace("compare", namedPath{name, path}); err != nil {
		return "", "", err
	}
	return path, sel, nil
}

// selectRun loads path and picks its run sel, with its goodput against
// slo unless that is zero. Loading stops once ctx is done.
func selectRun(ctx context.Context, path, sel string, slo traces.SLO) (*report.Run, error) {
	in, err := report.Load(ctx, slo, path)
	if ctx.Err() != nil { // the interrupt, not the load's error it caused
		return nil, fmt.Errorf("compare: interrupted reading %s: %w", path, ctx.Err())
	}
	if err != nil {
		return nil, err
	}
	r, err := in.Select(sel)
	switch {
	case errors.Is(err, report.ErrNoRuns):
		return nil, fmt.Errorf("%s: %w", path, err)
	case err != nil: // the argument names no run, or leaves several
		return nil, usageErrorf("compare: %s: %v", path, err)
	}
	return r, nil
}

// parseThreshold reads "10%" or "10" as 0.10.
func parseThreshold(s string) (float64, error) {
	trimmed := strings.TrimSpace(s)
	num := strings.TrimSpace(strings.TrimSuffix(trimmed, "%"))
	v, err := strconv.ParseFloat(num, 64)
	// NaN or Inf would flag nothing and silently turn the gate off.
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, usageErrorf("compare: --threshold %q: want a finite percentage ≥ 0, such as 10%%", s)
	}
	// "0.1" is more likely meant as the fraction 10% than as 0.1%, which
	// would flag a hundred times more: without a % sign it is refused.
	if v > 0 && v < 1 && num == trimmed {
		return 0, usageErrorf("compare: --threshold %q: a bare number is a percentage, and one under 1 reads as a fraction: "+
			"write %s%% if that is meant, or %.4g%% for the fraction %s", s, num, 100*v, num)
	}
	return v / 100, nil
}
