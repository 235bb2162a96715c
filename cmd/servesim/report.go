package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write an HTML (or Markdown) report of simulate results, sweep results and per-request traces",
		ArgsUsage: "RESULTS...",
		Description: "RESULTS are simulate --out directories (or their summary.json), sweep results Parquet files, and\n" +
			"per-request traces (live or simulated). The report shows what applies: the comparison table, latency\n" +
			"CDFs, throughput vs load with the knee, the Pareto front, KV utilization over time and the cost\n" +
			"breakdown. -o FILE.html writes one self-contained file (inline SVG and CSS, no external references);\n" +
			"-o FILE.md writes Markdown tables with the figures as SVG files in FILE_files/ beside it.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o", "out"}, Value: "report.html", Usage: "report file: .html or .md"},
			&cli.StringFlag{Name: "title", Value: "servesim report", Usage: "report title"},
			&cli.StringFlag{Name: "verify", Usage: "verify.json from servesim verify: adds the predicted-vs-measured pages"},
			&cli.StringFlag{Name: "slo", Usage: "per-request limits, e.g. ttft=2s,tpot=50ms: adds each trace's goodput to the comparison"},
		},
		Action: func(c *cli.Context) error {
			paths, flags, err := splitArgs(c, "output", "title", "verify", "slo")
			if err != nil {
				return err
			}
			if len(paths) == 0 && flags["verify"] == "" {
				return usageErrorf("report: want at least one RESULTS path (simulate --out directory, sweep results, trace) or --verify")
			}
			out := flags["output"]
			if err := checkReportOut(out); err != nil {
				return err
			}
			slo, err := sloFlag("report", flags)
			if err != nil {
				return err
			}
			for _, p := range paths {
				if err := checkInputs("report", wantFileOrDir, namedPath{"RESULTS", p}); err != nil {
					return err
				}
				if err := checkResultsTrace("report", namedPath{"RESULTS", p}); err != nil {
					return err
				}
			}
			if err := checkInputs("report", wantFile, namedPath{"--verify", flags["verify"]}); err != nil {
				return err
			}
			in, err := report.Load(c.Context, slo, paths...)
			if err := interruptedReport(c, out); err != nil {
				return err // the interrupt, not the load's error it caused
			}
			if err != nil {
				return err
			}
			noteUnusedSLO(c, slo, in)
			sections := report.DefaultSections()
			if v := flags["verify"]; v != "" {
				res, err := verify.LoadResult(v)
				if err != nil {
					return err
				}
				sections = append(sections, report.VerificationSection{Result: res})
				noteOtherSweep(c.App.ErrWriter, v, res, in)
				// listed with the other inputs: a verify-only report names its source
				in.Sources = append(in.Sources, verifySource(v, res))
			}
			doc, err := report.Build(flags["title"], in, sections...)
			if err != nil {
				return err
			}
			if err := interruptedReport(c, out); err != nil {
				return err
			}
			if err := report.WriteFile(out, doc); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s (%s)\n", out, numfmt.Count(len(doc.Sections), "section"))
			return nil
		},
	}
}

// interruptedReport is report's error once main has caught an interrupt:
// a report that ignored it would be written and exit 0.
func interruptedReport(c *cli.Context, out string) error {
	if err := c.Context.Err(); err != nil {
		return fmt.Errorf("report: interrupted, %s not written: %w", out, err)
	}
	return nil
}

// noteUnusedSLO says when --slo counts nothing: goodput needs a
// per-request trace, and the flag is noted, not refused, so that the rest
// of the report is still written (as compare does).
func noteUnusedSLO(c *cli.Context, slo traces.SLO, in *report.Inputs) {
	if slo.IsZero() {
		return
	}
	for _, r := range in.Runs {
		if !r.SLO.IsZero() {
			return
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "report: note: --slo %s counts nothing: no input is a per-request trace "+
		"(a sweep row's goodput is against its sweep's SLO; a summary.json needs its plans' traces beside it)\n", slo)
}

// noteOtherSweep says when the verify result at path measured the
// candidates of none of the sweeps among the inputs (by the spec and
// trace sha256 each records): its pages would read as those sweeps' best
// configs measured live. Noted, not refused, as noteUnusedSLO: the
// report is still written. A result that recorded no sweep is not
// compared.
func noteOtherSweep(log io.Writer, path string, res *verify.Result, in *report.Inputs) {
	if res.SpecSHA256 == "" || res.SweepTraceSHA256 == "" || len(in.Sweeps) == 0 {
		return
	}
	var names []string
	for _, sw := range in.Sweeps {
		if sw.Meta.SpecSHA256 == res.SpecSHA256 && sw.Meta.TraceSHA256 == res.SweepTraceSHA256 {
			return
		}
		names = append(names, sw.Path)
	}
	fmt.Fprintf(log, "report: note: %s verified the candidates of another sweep (spec sha256 %.12s…, trace sha256 %.12s…) than %s: "+
		"its pages are not those results' configs measured live\n", path, res.SpecSHA256, res.SweepTraceSHA256, strings.Join(names, ", "))
}

// checkReportOut checks, before any work, that the report can go to out:
// its extension names a format, its directory exists (nothing is created
// above it), out is not a directory and a Markdown report's figure
// folder can be replaced. Errors name the flag by both
// its usual spellings: which one was given is not known here.
func checkReportOut(out string) error {
	switch strings.ToLower(filepath.Ext(out)) {
	case ".html", ".htm", ".md", ".markdown":
	default:
		return usageErrorf("report: -o/--out: %s: unknown report extension %q (want .html or .md)", out, filepath.Ext(out))
	}
	if err := atomicfile.CheckFile(out); err != nil {
		return usageErrorf("report: -o/--out: %v", err)
	}
	if err := report.CheckFigureDir(out); err != nil {
		return usageErrorf("report: -o/--out: %v", err)
	}
	return nil
}

// sloFlag parses --slo from splitArgs' values: the zero SLO when it was
// not given, an error naming cmd when it is malformed (empty included).
func sloFlag(cmd string, flags map[string]string) (traces.SLO, error) {
	s, set := flags["slo"]
	if !set {
		return traces.SLO{}, nil
	}
	slo, err := traces.ParseSLO(s)
	if err != nil {
		return slo, usageErrorf("%s: --%v", cmd, err)
	}
	return slo, nil
}

// splitArgs separates positional arguments from flags written after them
// (urfave/cli stops parsing flags at the first positional argument, but
// "servesim report RESULTS... -o report.html" reads naturally). Flags
// before the positionals are already parsed; these override them. Every
// flag taken here takes a value, as "--name value" or "--name=value"; vals
// holds those given or with a default.
func splitArgs(c *cli.Context, flags ...string) (pos []string, vals map[string]string, err error) {
	names := map[string]string{}
	for _, f := range c.Command.Flags {
		n := f.Names()
		for _, want := range flags {
			if n[0] == want {
				for _, alias := range n {
					names[alias] = want
				}
			}
		}
	}
	vals = map[string]string{} // a flag neither given nor defaulted is absent
	for _, f := range flags {
		if v := c.String(f); v != "" || c.IsSet(f) {
			vals[f] = v
		}
	}
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		canon, ok := names[name]
		if !ok {
			return nil, nil, usageErrorf("%s: unknown flag %s", c.Command.Name, a)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, usageErrorf("%s: flag %s needs a value", c.Command.Name, a)
			}
			i++
			val = args[i]
		}
		vals[canon] = val
	}
	return pos, vals, nil
}

// verifySource names a verify result among a report's inputs.
func verifySource(path string, res *verify.Result) string {
	return fmt.Sprintf("%s: verify result, %s (%d not measured) on %s", path,
		numfmt.Count(len(res.Candidates), "candidate"), res.Incomplete, numfmt.Count(res.Requests, "request"))
}
