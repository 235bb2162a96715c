package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/traces"
)

// traceCommand groups the trace subcommands. Each is a thin layer: flags
// are turned into a traces call and errors are returned.
func traceCommand() *cli.Command {
	return &cli.Command{
		Name:   "trace",
		Usage:  "import, convert, synthesise, slice, scale and summarise request traces",
		Action: groupHelpOrUnknown,
		Subcommands: []*cli.Command{
			traceImportCommand(),
			traceConvertCommand(),
			traceSynthCommand(),
			traceSliceCommand(),
			traceScaleCommand(),
			traceStatsCommand(),
		},
	}
}

// twoArgs returns the IN and OUT positional arguments. OUT must not be
// IN: writing it would replace the input with the result.
func twoArgs(c *cli.Context) (string, string, error) {
	cmd := commandName(c) // "trace import"
	if err := flagsFirst(cmd, c.Args().Slice()); err != nil {
		return "", "", err
	}
	if c.NArg() != 2 {
		return "", "", usageErrorf("%s: want IN OUT, got %d arguments", cmd, c.NArg())
	}
	in, out := c.Args().Get(0), c.Args().Get(1)
	if err := checkOutputs(cmd, []namedPath{{"OUT", out}}, []namedPath{{"IN", in}}); err != nil {
		return "", "", err
	}
	if err := checkTraceOut(cmd, out); err != nil {
		return "", "", err
	}
	if err := checkInputs(cmd, wantFile, namedPath{"IN", in}); err != nil {
		return "", "", err
	}
	return in, out, nil
}

// servesimIn refuses an IN whose extension names no servesim trace
// format (convert, slice and scale read servesim files only, by
// extension), a usage error found before any work, as OUT's.
func servesimIn(cmd, in string) error {
	if _, err := traces.FormatOf(in); err != nil {
		return usageErrorf("%s: IN: %v", cmd, err)
	}
	return nil
}

// openServesimIn opens IN, a servesim trace by its extension, for a
// command that rewrites one.
func openServesimIn(cmd, in string) (traces.Reader, error) {
	if err := servesimIn(cmd, in); err != nil {
		return nil, err
	}
	r, err := traces.Import(in, traces.FormatServesim, traces.ImportOptions{})
	return r, importHint(in, err)
}

// importHint adds to err, IN's failure to read as a servesim trace, the
// import that reads it when its first bytes sniff as a public format: a
// raw Azure or Mooncake file otherwise fails only for want of arrival_ns.
func importHint(in string, err error) error {
	if err == nil {
		return nil
	}
	format, serr := traces.DetectFormat(in, traces.FormatAuto)
	if serr != nil || format == traces.FormatServesim {
		return err
	}
	return fmt.Errorf("%w (its first line is %s's: use servesim trace import --format %s %s OUT)", err, format, format, in)
}

// checkTraceOut refuses an OUT whose extension names no trace format, or
// that cannot be written (a directory, or in one that does not exist), a
// usage error found before any work, as record's --out.
func checkTraceOut(cmd, out string) error {
	if _, err := traces.FormatOf(out); err != nil {
		return usageErrorf("%s: OUT: %v", cmd, err)
	}
	if err := atomicfile.CheckFile(out); err != nil {
		return usageErrorf("%s: OUT: %v", cmd, err)
	}
	return nil
}

func traceImportCommand() *cli.Command {
	names := []string{string(traces.FormatAuto)}
	for _, f := range traces.ImportFormats() {
		names = append(names, string(f))
	}
	return &cli.Command{
		Name:      "import",
		Usage:     "import a public trace into servesim's format (output format by extension)",
		ArgsUsage: "IN OUT",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "auto", Usage: "input format: " + strings.Join(names, ", ")},
			&cli.BoolFlag{Name: "drop-failed", Usage: "drop rows the source marks as failed (BurstGPT rows with 0 response tokens) instead of keeping them with source_failed=true"},
			&cli.DurationFlag{Name: "spread", Usage: "spread requests sharing a timestamp evenly over this quantum (e.g. 3s for Mooncake)"},
			&cli.Float64Flag{Name: "rate", Usage: "arrival rate (req/s, at most 1e6: arrivals are kept to the ns) of the Poisson process for formats without timestamps (sharegpt)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the arrival process for formats without timestamps (sharegpt)"},
			&cli.IntFlag{Name: "max-tokens", Value: traces.DefaultMaxTokens, Usage: "reject token counts above this as absurd"},
		},
		Action: func(c *cli.Context) error {
			in, out, err := twoArgs(c)
			if err != nil {
				return err
			}
			if c.Int("max-tokens") <= 0 || c.Int("max-tokens") > math.MaxInt32 {
				return usageErrorf("trace import: --max-tokens %d: want in (0, %d]", c.Int("max-tokens"), math.MaxInt32)
			}
			if c.Duration("spread") < 0 || c.Float64("rate") < 0 {
				return usageErrorf("trace import: --spread and --rate must be ≥ 0, got %s and %g", c.Duration("spread"), c.Float64("rate"))
			}
			format, err := importFormat(c, "trace import", in)
			if err != nil {
				return err
			}
			var dropped int64
			opt := traces.ImportOptions{
				DropFailed:  c.Bool("drop-failed"),
				Dropped:     &dropped,
				Spread:      int64(c.Duration("spread")),
				Rate:        c.Float64("rate"),
				Seed:        c.Uint64("seed"),
				MaxTokens:   int32(c.Int("max-tokens")),
				ToolVersion: c.App.Version,
			}
			r, err := traces.Import(in, format, opt)
			if err != nil {
				return err
			}
			n, err := traces.WriteTrace(c.Context, out, importNotEmpty(in, format, opt, r))
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.ErrWriter, "imported %d requests to %s%s\n", n, out, droppedNote(dropped))
			return nil
		},
	}
}

// droppedNote says how many rows --drop-failed dropped, so the count
// imported adds up to the source's; "" when it dropped none.
func droppedNote(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (dropped %d rows the source marks failed)", n)
}

// importNotEmpty fails an import of in that yields no row, saying why,
// as slice refuses an empty window. Warm-up rows of a servesim input are
// rows still: importing them alone rewrites that trace as it is.
// Failed rows are blamed only when this import dropped some: neither an
// empty file nor a drop_failed an input carries from an earlier import
// says so, so the source is asked again (only when nothing came out).
func importNotEmpty(in string, format traces.ImportFormat, opt traces.ImportOptions, r traces.Reader) traces.Reader {
	empty := func() error {
		if opt.DropFailed {
			dropped, err := traces.AnyFailed(in, format, opt)
			if err != nil {
				return fmt.Errorf("trace import: %w", err) // err names in already
			}
			if dropped {
				return fmt.Errorf("import %s: every request is marked failed, and --drop-failed dropped them all (without it they are kept with source_failed=true); nothing written", in)
			}
		}
		return fmt.Errorf("import %s: it holds no request (a header or an empty array alone); nothing written", in)
	}
	return &notEmpty{Reader: r, empty: empty, warmupOnly: func(int) error { return nil }}
}

// importFormat is --format for path, sniffed when auto; a format servesim
// does not import is a usage error, named as the flag's. Only ShareGPT's
// arrivals come from --rate and --seed: for a trace with timestamps
// either flag would be ignored, which looks as if it worked, so it is
// refused.
func importFormat(c *cli.Context, cmd, path string) (traces.ImportFormat, error) {
	if f := traces.ImportFormat(c.String("format")); f != traces.FormatAuto && f != "" && !slices.Contains(traces.ImportFormats(), f) {
		names := []string{string(traces.FormatAuto)}
		for _, f := range traces.ImportFormats() {
			names = append(names, string(f))
		}
		return "", usageErrorf("%s: --format %q: want %s", cmd, f, strings.Join(names, ", "))
	}
	format, err := traces.DetectFormat(path, traces.ImportFormat(c.String("format")))
	if err != nil {
		return "", err
	}
	if format == traces.FormatServesim {
		if _, err := traces.FormatOf(path); err != nil { // servesim's own files are read by extension
			return "", usageErrorf("%s: IN: %v", cmd, err)
		}
	}
	if c.IsSet("rate") && format != traces.FormatShareGPT {
		return "", cli.Exit(fmt.Sprintf("%s: --rate: %s is %s, whose timestamps give the arrivals; --rate sets them only for sharegpt (to change a trace's rate: servesim trace scale --rate-factor)", cmd, path, format), 2)
	}
	if r := c.Float64("rate"); format == traces.FormatShareGPT && (!(r > 0) || math.IsInf(r, 0)) {
		return "", cli.Exit(fmt.Sprintf("%s: --rate: %s is sharegpt, which has no timestamps: give the arrival rate in req/s (> 0, finite), got %v", cmd, path, r), 2)
	}
	if r := c.Float64("rate"); format == traces.FormatShareGPT && r > traces.MaxArrivalRate {
		return "", cli.Exit(fmt.Sprintf("%s: --rate: %v req/s is past the clock's resolution: want at most %g (a 1 µs mean gap; arrivals are kept to the ns)", cmd, r, float64(traces.MaxArrivalRate)), 2)
	}
	if c.IsSet("seed") && format != traces.FormatShareGPT {
		return "", cli.Exit(fmt.Sprintf("%s: --seed: %s is %s, whose timestamps give the arrivals; --seed drives the arrival process only for sharegpt", cmd, path, format), 2)
	}
	return format, nil
}

func traceConvertCommand() *cli.Command {
	return &cli.Command{
		Name:      "convert",
		Usage:     "rewrite a servesim trace in another format (both by extension), keeping metadata",
		ArgsUsage: "IN OUT",
		Action: func(c *cli.Context) error {
			in, out, err := twoArgs(c)
			if err != nil {
				return err
			}
			if err := servesimIn("trace convert", in); err != nil {
				return err
			}
			n, cut, err := traces.ConvertPartial(c.Context, in, out)
			if err != nil {
				return importHint(in, err)
			}
			if cut {
				fmt.Fprintf(c.App.ErrWriter, "note: %s ends in a message cut short (its writer was killed mid-flush, or is still flushing; rows read whole: %d): the rows of that message are not in %s\n", in, n, out)
			}
			return nil
		},
	}
}

func traceSynthCommand() *cli.Command {
	return &cli.Command{
		Name:      "synth",
		Usage:     "generate a synthetic trace (deterministic for a seed)",
		ArgsUsage: "OUT",
		Flags: []cli.Flag{
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of every random draw (arrivals, lengths, prefix groups, turns and think times)"},
			&cli.IntFlag{Name: "requests", Value: 1000, Usage: "measured requests, at least 1 (--prompt-lengths sets them instead)"},
			&cli.StringFlag{Name: "prompt-lengths", Usage: "fixed-input matrix: comma-separated prompt lengths, each --repeats times"},
			&cli.IntFlag{Name: "repeats", Value: 1, Usage: "with --prompt-lengths: requests per length"},
			&cli.IntFlag{Name: "warmup", Usage: "warm-up requests first, marked warmup=true"},
			&cli.StringFlag{Name: "arrival", Value: traces.ArrivalPoisson, Usage: "constant, poisson or gamma"},
			&cli.Float64Flag{Name: "rate", Value: 1, Usage: "requests per second, or sessions per second with --turns (at most 1e6 requests/s, with sessions rate × mean turns: arrivals are kept to the ns)"},
			&cli.StringFlag{Name: "rate-curve", Usage: "time-varying rate instead of --rate: SECONDS:RATE pairs from 0 s, comma-separated (\"0:1,600:5,1200:1\"), linear between them and held after the last; sessions per second with --turns"},
			&cli.Float64Flag{Name: "cv", Value: 1, Usage: "inter-arrival coefficient of variation (gamma)"},
			&cli.StringFlag{Name: "prompt", Value: "fixed:1024", Usage: "prompt length: fixed:N, uniform:MIN:MAX or lognormal:MEAN:CV[:MIN:MAX] (MEAN, CV before clamping to MIN:MAX)"},
			&cli.StringFlag{Name: "output", Value: "fixed:128", Usage: "output length, same syntax as --prompt"},
			&cli.StringFlag{Name: "resample", Usage: "draw (prompt, output) pairs from this trace instead"},
			&cli.IntFlag{Name: "prefix-groups", Usage: "number of shared-prefix groups"},
			&cli.IntFlag{Name: "prefix-tokens", Usage: "shared prefix length, added to each prompt (with sessions, to the first turn: later turns hold it in their history)"},
			&cli.IntFlag{Name: "block-size", Usage: "tokens per prefix hash block, at most 10000000 (0 = no hashes)"},
			&cli.StringFlag{Name: "turns", Value: "fixed:1", Usage: "turns per session, same syntax as --prompt: each turn's prompt is the session's history plus a new --prompt message (fixed:1 = no sessions)"},
			&cli.Float64Flag{Name: "think-time", Usage: "required with --turns sessions, refused without: mean seconds (exponential, at least 1e-6) from one turn's arrival to the next's; --rate then opens sessions"},
		},
		Action: func(c *cli.Context) error {
			if err := flagsFirst("trace synth", c.Args().Slice()); err != nil {
				return err
			}
			if c.NArg() != 1 {
				return usageErrorf("trace synth: want OUT, got %d arguments", c.NArg())
			}
			if err := checkOutputs("trace synth", []namedPath{{"OUT", c.Args().Get(0)}}, []namedPath{{"--resample", c.String("resample")}}); err != nil {
				return err
			}
			if err := checkTraceOut("trace synth", c.Args().Get(0)); err != nil {
				return err
			}
			if err := checkInputs("trace synth", wantFile, namedPath{"--resample", c.String("resample")}); err != nil {
				return err
			}
			if err := checkTraceExtension("trace synth", namedPath{"--resample", c.String("resample")}); err != nil {
				return err
			}
			// A flag the chosen mode ignores would leave the trace other
			// than asked for.
			if c.IsSet("resample") {
				for _, f := range []string{"prompt", "output", "prompt-lengths"} {
					if c.IsSet(f) {
						return usageErrorf("trace synth: --resample draws prompt and output lengths from its trace; --%s conflicts with it", f)
					}
				}
			}
			if c.IsSet("repeats") && !c.IsSet("prompt-lengths") {
				return usageErrorf("trace synth: --repeats applies to --prompt-lengths only")
			}
			if c.IsSet("prompt-lengths") {
				// An empty list (an unset shell variable) would be no matrix:
				// the default process trace, --repeats unused.
				if strings.TrimSpace(c.String("prompt-lengths")) == "" {
					return usageErrorf("trace synth: --prompt-lengths: want at least one length, comma-separated, got %q", c.String("prompt-lengths"))
				}
				for _, f := range []string{"prompt", "requests"} {
					if c.IsSet(f) {
						return usageErrorf("trace synth: --prompt-lengths sets the prompts and the row count; --%s conflicts with it", f)
					}
				}
			}
			if c.IsSet("cv") && c.String("arrival") != traces.ArrivalGamma {
				return usageErrorf("trace synth: --cv applies to --arrival %s only, got --arrival %q", traces.ArrivalGamma, c.String("arrival"))
			}
			if c.Int("prefix-tokens") < 0 || c.Int("prefix-groups") < 0 || (c.Int("prefix-tokens") > 0) != (c.Int("prefix-groups") > 0) {
				return usageErrorf("trace synth: --prefix-groups and --prefix-tokens go together, both > 0 (got %d and %d)", c.Int("prefix-groups"), c.Int("prefix-tokens"))
			}
			if n := c.Int("prefix-tokens"); n > traces.DefaultMaxTokens {
				return usageErrorf("trace synth: --prefix-tokens: must be in (0, %d] with prefix groups, got %d", traces.DefaultMaxTokens, n)
			}
			if c.IsSet("think-time") && !c.IsSet("turns") {
				return usageErrorf("trace synth: --think-time applies to --turns sessions only")
			}
			cfg := traces.DefaultSynthConfig()
			cfg.ToolVersion = c.App.Version
			cfg.Seed, cfg.Requests, cfg.Repeats, cfg.Warmup = c.Uint64("seed"), c.Int("requests"), c.Int("repeats"), c.Int("warmup")
			cfg.Arrival = traces.ArrivalSpec{Kind: c.String("arrival"), Rate: c.Float64("rate"), CV: c.Float64("cv")}
			if c.IsSet("rate-curve") {
				// Both would leave which rate the trace has unclear.
				if c.IsSet("rate") {
					return usageErrorf("trace synth: --rate-curve sets the rate over time; --rate conflicts with it")
				}
				curve, err := traces.ParseRateCurve(c.String("rate-curve"))
				if err != nil {
					return usageErrorf("trace synth: --rate-curve: %v", err)
				}
				cfg.Arrival.Rate, cfg.Arrival.Curve = 0, curve
			}
			cfg.PrefixGroups, cfg.PrefixTokens, cfg.BlockSize = c.Int("prefix-groups"), int32(c.Int("prefix-tokens")), c.Int("block-size")
			var err error
			if cfg.Prompt, err = traces.ParseLengthSpec(c.String("prompt")); err != nil {
				return usageErrorf("trace synth: --prompt: %v", err)
			}
			if cfg.Output, err = traces.ParseLengthSpec(c.String("output")); err != nil {
				return usageErrorf("trace synth: --output: %v", err)
			}
			if cfg.Turns, err = traces.ParseTurnsSpec(c.String("turns")); err != nil {
				return usageErrorf("trace synth: --turns: %v", err)
			}
			if err := checkSessionFlags(c, cfg.Turns != traces.DefaultSynthConfig().Turns); err != nil {
				return err
			}
			cfg.ThinkTime = c.Float64("think-time")
			if cfg.PromptLengths, err = parsePromptLengths(c.String("prompt-lengths")); err != nil {
				return usageErrorf("trace synth: %v", err)
			}
			if path := c.String("resample"); path != "" {
				// Only lengths are drawn: a format without timestamps
				// (sharegpt) needs some rate, which goes unused.
				r, err := traces.Import(path, traces.FormatAuto, traces.ImportOptions{Rate: 1})
				if err != nil {
					return err
				}
				cfg.Resample, err = traces.NewEmpirical(traces.WithContext(c.Context, r))
				if err = errors.Join(err, r.Close()); err != nil {
					return err
				}
			}
			if err := cfg.Validate(); err != nil {
				return cli.Exit(flagErrors("trace synth", synthFlags, err), 2)
			}
			r, err := traces.Synthesize(cfg)
			if err != nil {
				return err
			}
			_, err = traces.WriteTrace(c.Context, c.Args().Get(0), r)
			// Random arrivals can run past the clock where their expected
			// span, all Validate checks, does not: still bad input.
			var fe *traces.FieldError
			if errors.As(err, &fe) {
				return cli.Exit(flagErrors("trace synth", synthFlags, fe), 2)
			}
			return err
		},
	}
}

// checkSessionFlags refuses, by flag, what conflicts with sessions or
// needs them, before a --resample trace is read only to be refused.
func checkSessionFlags(c *cli.Context, sessions bool) error {
	if !sessions {
		if c.Float64("think-time") != 0 {
			return usageErrorf("trace synth: --think-time spaces the turns of sessions; --turns %s makes none (want more than one turn a session)", c.String("turns"))
		}
		return nil
	}
	// Unset, the gap reads as 0 and Validate's range error would hide
	// that the flag is missing.
	if !c.IsSet("think-time") {
		return usageErrorf("trace synth: --turns %s makes sessions, which need --think-time (mean seconds from one turn's arrival to the next's)", c.String("turns"))
	}
	for _, f := range []string{"prompt-lengths", "resample"} {
		if c.IsSet(f) {
			return usageErrorf("trace synth: --turns %s makes sessions, which grow each prompt from its history; --%s sets whole prompts and conflicts with it", c.String("turns"), f)
		}
	}
	return nil
}

// parsePromptLengths reads --prompt-lengths: comma-separated token counts
// (traces.ParseTokenCount), spaces around them allowed; "" is none (nil).
func parsePromptLengths(s string) ([]int32, error) {
	if s == "" {
		return nil, nil
	}
	var ls []int32
	for _, f := range strings.Split(s, ",") {
		n, err := traces.ParseTokenCount(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--prompt-lengths: %w", err)
		}
		ls = append(ls, n)
	}
	return ls, nil
}

// synthFlags are the flags that set traces.SynthConfig's fields.
var synthFlags = map[string]string{
	"Arrival.Rate": "--rate", "Arrival.Curve": "--rate-curve", "Arrival.CV": "--cv", "Arrival.Kind": "--arrival", "PromptLengths": "--prompt-lengths",
	"Requests": "--requests", "Repeats": "--repeats", "Warmup": "--warmup", "PrefixGroups": "--prefix-groups",
	"PrefixTokens": "--prefix-tokens", "BlockSize": "--block-size", "Prompt": "--prompt", "Output": "--output",
	"Resample": "--resample", "Turns": "--turns", "ThinkTime": "--think-time",
}

func traceSliceCommand() *cli.Command {
	return &cli.Command{
		Name:      "slice",
		Usage:     "keep requests arriving in [from, to) and at most --head of them; times re-based to --from",
		ArgsUsage: "IN OUT",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "from", Usage: "window start from the trace start"},
			&cli.DurationFlag{Name: "to", Usage: "window end (0 = end of trace)"},
			&cli.IntFlag{Name: "head", Usage: "keep at most N requests (0 = all)"},
		},
		Action: func(c *cli.Context) error {
			in, out, err := twoArgs(c)
			if err != nil {
				return err
			}
			from, to := c.Duration("from"), c.Duration("to")
			if from < 0 || to < 0 || (to > 0 && to <= from) || c.Int("head") < 0 {
				return usageErrorf("trace slice: want 0 <= --from < --to and --head >= 0, got from %s to %s head %d", from, to, c.Int("head"))
			}
			r, err := openServesimIn("trace slice", in)
			if err != nil {
				return err
			}
			window := fmt.Sprintf("[%s, end)", from)
			if to > 0 {
				window = fmt.Sprintf("[%s, %s)", from, to)
			}
			kept := &notEmpty{Reader: traces.Slice(r, int64(from), int64(to), c.Int("head")),
				empty: func() error {
					return fmt.Errorf("slice %s: no request arrives in %s, warm-up rows aside (`servesim trace stats` gives the trace's span); nothing written", in, window)
				}}
			if head := c.Int("head"); head > 0 {
				// A head filled with warm-up rows cut the requests that
				// arrived after them; fewer rows than it are the window's.
				kept.warmupOnly = func(n int) error {
					if n < head {
						return kept.empty()
					}
					return fmt.Errorf("slice %s: --head %d keeps %d warm-up rows of %s and no measured request; nothing written", in, head, n, window)
				}
			}
			_, err = traces.WriteTrace(c.Context, out, kept)
			return err
		},
	}
}

// notEmpty fails a reader that yields no measured row (warm-up rows
// aside) with its error empty: a slice whose window lies past the
// trace's end (or was given in the wrong unit) would otherwise write a
// trace with nothing to measure, to fail far from the cause, as verify's
// --slice refuses it.
type notEmpty struct {
	traces.Reader
	rows, warmups int                     // measured rows, warm-up rows
	empty         func() error            // the error of no row at all
	warmupOnly    func(warmups int) error // when set, the error of warm-up rows alone
	err           error
}

func (r *notEmpty) Next() bool {
	if r.Reader.Next() {
		if r.At().Warmup {
			r.warmups++
		} else {
			r.rows++
		}
		return true
	}
	if r.rows == 0 && r.Reader.Err() == nil {
		r.err = r.empty()
		if r.warmups > 0 && r.warmupOnly != nil {
			r.err = r.warmupOnly(r.warmups)
		}
	}
	return false
}

func (r *notEmpty) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.Reader.Err()
}

func traceScaleCommand() *cli.Command {
	return &cli.Command{
		Name:      "scale",
		Usage:     "stretch or compress arrivals: --time-factor F multiplies them, --rate-factor R divides them",
		ArgsUsage: "IN OUT",
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "time-factor", Usage: "multiply every arrival by this"},
			&cli.Float64Flag{Name: "rate-factor", Usage: "multiply the request rate by this (arrival x 1/R)"},
		},
		Action: func(c *cli.Context) error {
			in, out, err := twoArgs(c)
			if err != nil {
				return err
			}
			var f float64
			flag := "time-factor"
			switch {
			case c.IsSet("time-factor") == c.IsSet("rate-factor"):
				return usageErrorf("trace scale: give exactly one of --time-factor and --rate-factor")
			case c.IsSet("time-factor"):
				f = c.Float64("time-factor")
			default:
				flag, f = "rate-factor", 1/c.Float64("rate-factor")
			}
			if v := c.Float64(flag); !(v > 0) || math.IsInf(v, 0) {
				return usageErrorf("trace scale: --%s %v: want a finite factor > 0", flag, v)
			}
			r, err := openServesimIn("trace scale", in)
			if err != nil {
				return err
			}
			s, err := traces.Scale(r, f)
			if err != nil {
				return errors.Join(err, r.Close())
			}
			if _, err = traces.WriteTrace(c.Context, out, s); err != nil {
				return fmt.Errorf("scale %s: %w", in, err)
			}
			return nil
		},
	}
}

func traceStatsCommand() *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "summarise a trace (any importable format) in bounded memory",
		ArgsUsage: "IN",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "auto", Usage: "input format, as for import"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON instead of a table"},
			&cli.DurationFlag{Name: "spread", Usage: "as for import"},
			&cli.Float64Flag{Name: "rate", Usage: "as for import: required for sharegpt, which has no timestamps"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "as for import: seed of the arrival process for sharegpt"},
			&cli.StringFlag{Name: "slo", Usage: "measured traces: goodput within per-request limits, e.g. ttft=2s,tpot=50ms,e2e=30s"},
		},
		Action: func(c *cli.Context) error {
			if err := flagsFirst("trace stats", c.Args().Slice()); err != nil {
				return err
			}
			if c.NArg() != 1 {
				return usageErrorf("trace stats: want IN, got %d arguments", c.NArg())
			}
			if err := checkInputs("trace stats", wantFile, namedPath{"IN", c.Args().Get(0)}); err != nil {
				return err
			}
			var slo traces.SLO
			if c.IsSet("slo") {
				var err error
				if slo, err = traces.ParseSLO(c.String("slo")); err != nil {
					return usageErrorf("trace stats: --%v", err)
				}
			}
			if c.Duration("spread") < 0 {
				return usageErrorf("trace stats: --spread must be ≥ 0, got %s", c.Duration("spread"))
			}
			start := time.Now()
			format, err := importFormat(c, "trace stats", c.Args().Get(0))
			if err != nil {
				return err
			}
			r, err := traces.Import(c.Args().Get(0), format, traces.ImportOptions{
				Spread: int64(c.Duration("spread")), Rate: c.Float64("rate"), Seed: c.Uint64("seed"),
			})
			if err != nil {
				return err
			}
			s, err := traces.ComputeStats(traces.WithContext(c.Context, r), slo)
			if err = errors.Join(err, r.Close()); err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			if err := s.WriteTable(c.App.Writer); err != nil {
				return err
			}
			fmt.Fprintf(c.App.ErrWriter, "(%s)\n", time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
}
