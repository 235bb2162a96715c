package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
)

// recordCommand replays a trace against a live server. Subcommands (the
// recording proxy) are appended to its Subcommands.
func recordCommand() *cli.Command {
	return &cli.Command{
		Name:      "record",
		Usage:     "replay a trace against a live OpenAI-compatible server and record what it did",
		UsageText: "servesim record --trace IN --out OUT --base-url URL --model NAME [options]",
		Description: "Sends every row of --trace (open loop on an absolute clock, or closed loop) with a prompt of the row's\n" +
			"token length and max_tokens = its output length, streams the answers, and writes the trace with the\n" +
			"observed columns filled to --out (.parquet, .arrow, .arrows, .csv or .jsonl). While running, rows go\n" +
			"to OUT.partial.arrows, flushed every 0.5 s, so a crash loses at most the last second. Settings can come\n" +
			"from --settings FILE (.json or .toml); flags override the file. Its keys: trace, out, base_url, model,\n" +
			"arrival, concurrency, time_scale, repeat, save_raw, temperature, keep_text, block_size, prompt_salt,\n" +
			"api_key_env, endpoint, timeout (a duration string, \"30s\"), ignore_eos, continuous_usage, flush_every,\n" +
			"max_idle_conns, session_wait, max_tokens (a cap on the max_tokens sent; 0 = none), slo\n" +
			"(as --slo: \"ttft=2s,tpot=50ms\"; the summary then gives goodput, the requests within every limit), and a\n" +
			"[text_model] table (a JSON object) with tokens_per_byte, overhead and prefix for --tokens-per-byte,\n" +
			"--prompt-overhead and --prompt-prefix. --gpu, --gpu-devices, --engine-metrics and --telemetry-interval\n" +
			"are flags only; unknown keys are errors. A run in which no request succeeded is written all the same, and record then\n" +
			"exits 1.\n" +
			"The API key is read only from the environment variable named by --api-key-env.",
		Flags:       recordFlags(),
		Action:      recordAction,
		Subcommands: []*cli.Command{proxyCommand()},
	}
}

func recordFlags() []cli.Flag {
	d := replay.DefaultConfig()
	return append([]cli.Flag{
		&cli.StringFlag{Name: "settings", Usage: "JSON or TOML settings file; flags override it"},
		&cli.StringFlag{Name: "trace", Usage: "input trace"},
		&cli.StringFlag{Name: "out", Usage: "output trace (format by extension); with --repeat N, NAME.runK.EXT"},
		&cli.StringFlag{Name: "base-url", Usage: "API root, e.g. http://127.0.0.1:8000/v1"},
		&cli.StringFlag{Name: "model", Usage: "model name sent in requests"},
		&cli.StringFlag{Name: "arrival", Value: string(d.Arrival), Usage: "open (send at arrival × time-scale) or closed (N clients back to back)"},
		&cli.IntFlag{Name: "concurrency", Usage: "closed: number of clients; open: cap on requests in flight (0 = none)"},
		&cli.Float64Flag{Name: "time-scale", Value: d.TimeScale, Usage: "open loop: multiply arrival times (0.5 = twice the rate)"},
		&cli.BoolFlag{Name: "session-wait", Usage: "open loop: send a row with a session_id no earlier than the end of its session's previous row (a user waits for the reply before the next turn)"},
		&cli.IntFlag{Name: "repeat", Value: d.Repeat, Usage: "run the trace N times (at most 1000) and report the spread"},
		&cli.StringFlag{Name: "save-raw", Usage: "directory for raw response bodies (SSE, the first 64 MiB of each), one file per request; it must hold none of an earlier recording"},
		&cli.Float64Flag{Name: "temperature", Value: d.Temperature, Usage: "sampling temperature (always sent)"},
		&cli.BoolFlag{Name: "keep-text", Usage: "keep generated text in the output_text column (its first 4 MiB; a longer one says where it was cut)"},
		&cli.IntFlag{Name: "block-size", DefaultText: "the trace's block_size", Usage: "prompt tokens each prefix_hashes entry stands for, at most 10000000 (0 = the trace's block_size)"},
		&cli.Uint64Flag{Name: "prompt-salt", DefaultText: "random per run, so runs never share cache", Usage: "seed mixed into prompt text (run 1's: each later --repeat run derives its own); 0 draws one at random, as no flag does"},
		&cli.StringFlag{Name: "slo", Usage: "per-request limits for goodput, e.g. ttft=2s,tpot=50ms,e2e=30s (any of the three)"},
	}, append(clientFlags(d.Timeout), telemetryFlags()...)...)
}

func recordAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return cli.Exit(fmt.Sprintf("record: unexpected argument %q: record takes only flags, and reads none after an argument", c.Args().First()), 2)
	}
	cfg := replay.DefaultConfig()
	cfg.ToolVersion = c.App.Version
	var fromFile map[string]string // Go field → its key in the settings file, for the fields the file set
	if p := c.String("settings"); p != "" {
		if err := checkInputs("record", wantFile, namedPath{"--settings", p}); err != nil {
			return err
		}
		before := cfg
		if err := replay.LoadSettings(p, &cfg); err != nil {
			return cli.Exit(fmt.Sprintf("record: %v", err), 2)
		}
		fromFile = settingsFields(before, cfg, p)
	}
	set := func(name string, apply func()) {
		if c.IsSet(name) {
			apply()
		}
	}
	set("trace", func() { cfg.Trace = c.String("trace") })
	set("out", func() { cfg.Out = c.String("out") })
	set("base-url", func() { cfg.BaseURL = c.String("base-url") })
	set("model", func() { cfg.Model = c.String("model") })
	set("arrival", func() { cfg.Arrival = replay.Arrival(c.String("arrival")) })
	set("concurrency", func() { cfg.Concurrency = c.Int("concurrency") })
	set("time-scale", func() { cfg.TimeScale = c.Float64("time-scale") })
	set("session-wait", func() { cfg.SessionWait = c.Bool("session-wait") })
	set("repeat", func() { cfg.Repeat = c.Int("repeat") })
	set("save-raw", func() { cfg.SaveRaw = c.String("save-raw") })
	set("temperature", func() { cfg.Temperature = c.Float64("temperature") })
	set("keep-text", func() { cfg.KeepText = c.Bool("keep-text") })
	set("block-size", func() { cfg.BlockSize = c.Int("block-size") })
	set("prompt-salt", func() { cfg.Salt = c.Uint64("prompt-salt") })
	if c.IsSet("slo") {
		slo, err := traces.ParseSLO(c.String("slo"))
		if err != nil {
			return cli.Exit(fmt.Sprintf("record: --%v", err), 2)
		}
		cfg.SLO = slo
	}
	if err := applyClientFlags(c, &cfg); err != nil {
		return err
	}
	// Before the samplers and the text-model probes reach the engine.
	if err := cfg.ValidateRecord(); err != nil {
		return cli.Exit(flagErrors("record", settingsOrFlags(c, fromFile), err), 2)
	}
	if err := replay.CheckAPIKey(cfg.APIKeyEnv); err != nil {
		return cli.Exit(fmt.Sprintf("record: %v", err), 2)
	}
	// A directory where a run's trace goes would fail that run only once
	// its requests were sent.
	for k := 1; k <= cfg.Repeat; k++ {
		if out := replay.RunPath(cfg.Out, k, cfg.Repeat); isDir(out) {
			return usageErrorf("record: %s: %s is a directory: want a file", settingsOrFlags(c, fromFile)["Out"], out)
		}
	}

	tel, err := startSamplers(c, cfg.Out, slog.New(slog.NewTextHandler(c.App.ErrWriter, nil)))
	if err != nil {
		return err
	}
	sums, err := replay.Record(c.Context, cfg, c.App.ErrWriter)
	w := c.App.Writer
	var outTokens int64
	for _, s := range sums {
		outTokens += s.OutputTokens
	}
	written, rowsLeft := replay.Outcome(cfg, sums)
	err = errors.Join(err, tel.stopRuns(w, sums, outTokens), tel.finish(written, rowsLeft))
	for _, s := range sums {
		s.Print(w)
		if s.Written { // with --repeat, NAME.runK.EXT: not --out's own name
			fmt.Fprintf(w, "  wrote %s\n", replay.RunPath(cfg.Out, s.Run, cfg.Repeat))
		}
	}
	if len(sums) > 1 {
		replay.PrintSpread(w, sums)
	}
	for _, s := range sums {
		if s.LagFlagged {
			lag := "schedule lag"
			if s.CapWaits > 0 { // waits for a slot are the server's, not the client's
				lag = "schedule lag less the waits for a concurrency slot,"
			}
			fmt.Fprintf(c.App.ErrWriter, "servesim record: run %d: %s p99 %v exceeds %v; the client could not keep the schedule\n", s.Run, lag, s.ClientLag.P99, replay.LagLimit)
		}
	}
	if len(sums) > 0 {
		noTraceNote(c.App.ErrWriter, cfg, sums[len(sums)-1])
	}
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return noneSucceeded(sums)
}

// noTraceNote says that an interrupted run wrote no trace (no measured
// request had completed) and left an earlier file of its name as it was:
// else the earlier file reads as this run's.
func noTraceNote(w io.Writer, cfg replay.Config, s *replay.Summary) {
	if !s.Interrupted || s.Written || s.RowsKeptIn != "" {
		return
	}
	out := replay.RunPath(cfg.Out, s.Run, cfg.Repeat)
	earlier := ""
	if _, err := os.Lstat(out); err == nil {
		earlier = ", an earlier " + out + " left as it was"
	}
	fmt.Fprintf(w, "servesim record: run %d: interrupted: no trace written%s\n", s.Run, earlier)
}

// noneSucceeded is the error of the first run that sent requests and saw
// none succeed: its trace holds only failures, and a script that checks
// the exit status must not take it for a measurement.
func noneSucceeded(sums []*replay.Summary) error {
	for _, s := range sums {
		if s.Sent == 0 || s.Succeeded > 0 {
			continue
		}
		kinds := make([]string, 0, len(s.FailedByKind))
		for k, n := range s.FailedByKind {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		return cli.Exit(fmt.Sprintf("record: run %d: none of the %d requests succeeded (%s); the trace holds them as failures",
			s.Run, s.Sent, strings.Join(kinds, ", ")), 1)
	}
	return nil
}

// settingsFields names, for each Config field a settings file at path
// changed from before to after, its key in that file.
func settingsFields(before, after replay.Config, path string) map[string]string {
	out := map[string]string{}
	b, a := reflect.ValueOf(before), reflect.ValueOf(after)
	for i := range b.NumField() {
		if !reflect.DeepEqual(b.Field(i).Interface(), a.Field(i).Interface()) {
			f := b.Type().Field(i)
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			out[f.Name] = key + " in " + path
		}
	}
	return out
}

// settingsOrFlags is replayFlags with the fields the settings file set,
// and no flag overrode, named by their key in the file.
func settingsOrFlags(c *cli.Context, fromFile map[string]string) map[string]string {
	names := maps.Clone(replayFlags)
	for field, key := range fromFile {
		given := false
		for _, f := range strings.Split(replayFlags[field], "/") {
			if name, ok := strings.CutPrefix(f, "--"); ok && c.IsSet(name) {
				given = true
			}
		}
		if !given {
			names[field] = key
		}
	}
	return names
}
