package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/internal/urlshow"
	"github.com/servesim/servesim/replay/proxy"
)

// proxyCommand is `servesim record proxy`: a recording reverse proxy in
// front of a live OpenAI-compatible server.
func proxyCommand() *cli.Command {
	d := proxy.DefaultConfig()
	return &cli.Command{
		Name:      "proxy",
		Usage:     "record real traffic: forward it unchanged to a server and write each completion request to a trace",
		UsageText: "servesim record proxy --upstream URL --out TRACE [--listen :8080] [options]",
		Description: "Point clients at --listen instead of the server. Every POST .../v1/chat/completions and\n" +
			".../v1/completions becomes a row of --out (.parquet, .arrow, .arrows, .csv or .jsonl): arrival time,\n" +
			"tokens from the server's usage block (estimated from bytes, and marked so, when a stream has none),\n" +
			"prefix hashes of the prompt, session and class, and the observed send, first/last token, status and\n" +
			"error. Bodies and streams pass through byte for byte; headers (Authorization too) are forwarded and\n" +
			"never stored. Prompt text is stored only with --keep-prompts (NAME.prompts.jsonl for --out\n" +
			"NAME.parquet). Rows go to OUT.partial.arrows, flushed every --flush-interval, where a crash leaves\n" +
			"them (trace convert reads them). Stop with Ctrl-C: in-flight requests finish (up to --shutdown-grace)\n" +
			"and the trace is written to --out, unless no request finished (those cut at shutdown do not count):\n" +
			"then nothing is written and an earlier --out stays as it was.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "listen", Value: ":8080", Usage: "address to listen on"},
			&cli.StringFlag{Name: "upstream", Usage: "server base URL, e.g. http://127.0.0.1:8000"},
			&cli.StringFlag{Name: "out", Usage: "output trace (format by extension)"},
			&cli.IntFlag{Name: "block-size", Value: d.BlockSize, Usage: "tokens per prefix_hashes block, 1 to 10000000"},
			&cli.StringFlag{Name: "session-header", Value: d.SessionHeader, Usage: "request header holding the session id (empty: none)"},
			&cli.StringFlag{Name: "class-header", Usage: "request header holding the class (default: the request's model)"},
			&cli.BoolFlag{Name: "keep-prompts", Usage: "also write prompts, by row id, to NAME.prompts.jsonl for --out NAME.parquet"},
			&cli.Float64Flag{Name: "tokens-per-byte", Value: d.TokensPerByte, Usage: "estimate for prompt blocks and for token counts the server did not report, in (0, 4]"},
			&cli.DurationFlag{Name: "flush-interval", Value: d.FlushInterval, Usage: "how often rows are made durable, at most 1s"},
			&cli.DurationFlag{Name: "shutdown-grace", Value: d.ShutdownGrace, Usage: "on Ctrl-C, how long in-flight requests may run on"},
			&cli.Int64Flag{Name: "max-request-body", Value: d.MaxRequestBody, Usage: "bytes: a larger request body is refused (413) and recorded as failed, as each is held whole"},
			&cli.DurationFlag{Name: "body-timeout", Value: d.BodyTimeout, Usage: "a request body not received within it is refused (408) and recorded as failed"},
			&cli.StringFlag{Name: "model", Usage: "trace metadata: model name"},
			&cli.StringFlag{Name: "engine", Usage: "trace metadata: engine and version"},
			&cli.StringFlag{Name: "device", Usage: "trace metadata: device"},
		}, telemetryFlags()...),
		Action: proxyAction,
	}
}

// noRecordFlags refuses a flag given before "proxy": record parses it as
// its own and the proxy never reads it, so --model or --gpu there would be
// dropped without a word.
func noRecordFlags(c *cli.Context) error {
	lineage := c.Lineage()
	if len(lineage) < 2 {
		return nil
	}
	names := lineage[1].LocalFlagNames()
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	for i := range names {
		names[i] = "--" + names[i]
	}
	return usageErrorf("record proxy: %s: given before 'proxy', a flag is record's, which the proxy does not read: give it after 'proxy'", strings.Join(names, ", "))
}

// proxyFlags names the flag of each proxy.Config field.
var proxyFlags = map[string]string{
	"Upstream": "--upstream", "Out": "--out", "BlockSize": "--block-size", "TokensPerByte": "--tokens-per-byte",
	"FlushInterval": "--flush-interval", "ShutdownGrace": "--shutdown-grace", "MaxRequestBody": "--max-request-body",
	"BodyTimeout":   "--body-timeout",
	"SessionHeader": "--session-header", "ClassHeader": "--class-header",
}

// checkListen refuses a --listen address that does not parse (no port, a
// port out of range) as a usage error; one that parses but cannot be
// listened on (in use, no such host) fails the session when it listens.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return usageErrorf("record proxy: --listen %s: %v: want [HOST]:PORT, e.g. :8080", addr, err)
	}
	return nil
}

func proxyAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return cli.Exit(fmt.Sprintf("record proxy: unexpected argument %q: it takes only flags, and reads none after an argument", c.Args().First()), 2)
	}
	if err := noRecordFlags(c); err != nil {
		return err
	}
	if err := requireFlags(c, "upstream", "out"); err != nil {
		return err
	}
	cfg := proxy.DefaultConfig()
	cfg.Upstream, cfg.Out = c.String("upstream"), c.String("out")
	cfg.BlockSize, cfg.TokensPerByte = c.Int("block-size"), c.Float64("tokens-per-byte")
	cfg.SessionHeader, cfg.ClassHeader = c.String("session-header"), c.String("class-header")
	cfg.KeepPrompts = c.Bool("keep-prompts")
	cfg.FlushInterval, cfg.ShutdownGrace = c.Duration("flush-interval"), c.Duration("shutdown-grace")
	cfg.MaxRequestBody, cfg.BodyTimeout = c.Int64("max-request-body"), c.Duration("body-timeout")
	cfg.Meta.Model, cfg.Meta.Engine, cfg.Meta.Device = c.String("model"), c.String("engine"), c.String("device")
	cfg.Meta.ToolVersion = c.App.Version
	cfg.Logger = slog.New(slog.NewTextHandler(c.App.ErrWriter, nil))
	if err := cfg.Validate(); err != nil {
		return cli.Exit(flagErrors("record proxy", proxyFlags, err), 2)
	}
	if err := checkListen(c.String("listen")); err != nil {
		return err
	}
	// A directory there would fail the session only when it ends.
	if err := checkOutputFiles("record proxy", []namedPath{{"--out", cfg.Out}}); err != nil {
		return err
	}
	// Before listening: a refused session must not announce itself.
	if err := proxy.CheckStaging(cfg.Out); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.String("listen"))
	if err != nil {
		return fmt.Errorf("record proxy: --listen %s: %w", c.String("listen"), err)
	}
	tel, err := startSamplers(c, cfg.Out, cfg.Logger)
	if err != nil {
		ln.Close()
		return err
	}
	// Each request's own path is forwarded after the upstream's: an
	// upstream ending in /v1 (record's --base-url form) doubles it.
	if u, err := url.Parse(cfg.Upstream); err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") {
		root := *u
		root.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
		fmt.Fprintf(c.App.ErrWriter, "servesim: warning: --upstream ends in /v1, and each request's path follows it: /v1/chat/completions goes to %s/v1/chat/completions; give the server's root (%s) unless that is meant\n",
			strings.TrimRight(u.Path, "/"), urlshow.URL(&root))
	}
	// The upstream as given is connected to; its password and query
	// are never shown.
	fmt.Fprintf(c.App.ErrWriter, "servesim: proxying %s -> %s, recording to %s (Ctrl-C to stop)\n", ln.Addr(), urlshow.String(cfg.Upstream), cfg.Out)
	st, err := proxy.Serve(c.Context, ln, cfg)
	where := "-> " + cfg.Out
	switch { // the error says why
	case st.RowsLeft != "":
		where = "left in " + st.RowsLeft
	case st.NoneFinished:
		where = "(none finished: no trace written" + earlierOut(cfg.Out) + ")"
	case !st.Written:
		where = "(no trace written)"
	}
	fmt.Fprintf(c.App.Writer, "%s recorded (%d failed), %d prompt + %d output tokens in the successes %s\n",
		numfmt.Count(st.Rows, "request"), st.Failed, st.PromptTokens, st.OutputTokens, where)
	if st.Estimated > 0 {
		// Else the sums, and joules per output token, read as the server's counts.
		fmt.Fprintf(c.App.Writer, "%d succeeded without the server's usage: their token counts, in those sums, are estimates (--tokens-per-byte %g)\n", st.Estimated, cfg.TokensPerByte)
	}
	if st.Unparsed > 0 {
		fmt.Fprintf(c.App.Writer, "%d succeeded with a request or response body the proxy could not read: their token counts are estimates (a stream in an encoding other than gzip or br: no first-token or token times either)\n", st.Unparsed)
	}
	if n := st.NotRecorded; n > 0 {
		// Else they vanish unseen: the server answers them with a redirect
		// (whose followed request is a row) or a 404, not a completion.
		fmt.Fprintf(c.App.Writer, "%s to a completion path with a trailing slash forwarded, not recorded: servers redirect that path to the one without the slash (a followed redirect is recorded there) or refuse it\n",
			numfmt.Count(n, "request"))
	}
	return errors.Join(err, tel.stop(c.App.Writer, st.OutputTokens), tel.finish(st.Written, st.RowsLeft))
}

// earlierOut says that an earlier out was left as it was, when there is
// one: else the summary names a file the user would look for in vain.
func earlierOut(out string) string {
	if _, err := os.Lstat(out); err != nil {
		return ""
	}
	return ", an earlier " + out + " left as it was"
}
