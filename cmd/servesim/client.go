package main

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
	"github.com/urfave/cli/v2"
)

// clientFlags are the live-client settings shared by record, calibrate and
// verify; timeout is the command's default per-request timeout.
func clientFlags(timeout time.Duration) []cli.Flag {
	d := replay.DefaultConfig()
	return []cli.Flag{
		&cli.StringFlag{Name: "api-key-env", Value: d.APIKeyEnv, Usage: "environment variable holding the API key (empty value: no Authorization header)"},
		&cli.StringFlag{Name: "endpoint", Value: string(d.Endpoint), Usage: "chat or completions"},
		&cli.DurationFlag{Name: "timeout", Value: timeout, Usage: "per-request timeout, send to last byte"},
		&cli.BoolFlag{Name: "ignore-eos", Usage: `send "ignore_eos": true (vLLM, SGLang, llama.cpp's server) so outputs reach max_tokens`},
		&cli.BoolFlag{Name: "continuous-usage", Usage: `send stream_options "continuous_usage_stats": true (vLLM, SGLang): usage on every chunk, so a chunk of several tokens gets the server's count instead of a share by text length (OpenAI's API may refuse it)`},
		&cli.Float64Flag{Name: "tokens-per-byte", DefaultText: "calibrate with 3 probes", Usage: "text model: tokens per byte of prompt text (with --prompt-overhead)"},
		&cli.Float64Flag{Name: "prompt-overhead", Usage: "text model: tokens a request costs beyond its text (chat template)"},
		&cli.Float64Flag{Name: "prompt-prefix", Usage: "text model: the tokens of --prompt-overhead before the text (BOS and the chat template's header), which an engine's prompt cache shares between any two requests", DefaultText: "unknown: the whole overhead is counted before the text"},
	}
}

// applyClientFlags copies the client flags that were given onto cfg, so a
// settings file (record) keeps what the command line does not override.
func applyClientFlags(c *cli.Context, cfg *replay.Config) error {
	set := func(name string, apply func()) {
		if c.IsSet(name) {
			apply()
		}
	}
	set("api-key-env", func() { cfg.APIKeyEnv = c.String("api-key-env") })
	set("endpoint", func() { cfg.Endpoint = replay.Endpoint(c.String("endpoint")) })
	set("timeout", func() { cfg.Timeout = c.Duration("timeout") })
	set("ignore-eos", func() { cfg.IgnoreEOS = c.Bool("ignore-eos") })
	set("continuous-usage", func() { cfg.ContinuousUsage = c.Bool("continuous-usage") })
	set("tokens-per-byte", func() { cfg.Text.TokensPerByte = c.Float64("tokens-per-byte") })
	set("prompt-overhead", func() { cfg.Text.Overhead = c.Float64("prompt-overhead") })
	set("prompt-prefix", func() { cfg.Text.Prefix = c.Float64("prompt-prefix") })
	if c.IsSet("prompt-overhead") && cfg.Text.TokensPerByte == 0 {
		return cli.Exit(fmt.Sprintf("%s: --prompt-overhead needs --tokens-per-byte", c.Command.Name), 2)
	}
	return nil
}

// replayFlags names the flag (or settings key) of each replay.Config field.
var replayFlags = map[string]string{
	"BaseURL": "--base-url", "Model": "--model", "APIKeyEnv": "--api-key-env", "Endpoint": "--endpoint",
	"Timeout": "--timeout", "Arrival": "--arrival", "Concurrency": "--concurrency", "TimeScale": "--time-scale",
	"Repeat": "--repeat", "Temperature": "--temperature", "BlockSize": "--block-size",
	"Text": "--tokens-per-byte/--prompt-overhead/--prompt-prefix", "Trace": "--trace", "Out": "--out",
	"FlushEvery": "flush_every (settings file)", "MaxIdle": "max_idle_conns (settings file)", "SLO": "--slo",
	"MaxTokens": "max_tokens (settings file)", "SaveRaw": "--save-raw",
	"SessionWait": "--session-wait",
}

// withFlags is fe's message with each other field it names (fe.With)
// spelt as its flag, where flags has one.
func withFlags(fe *traces.FieldError, flags map[string]string) string {
	msg := fe.Msg
	for _, w := range fe.With {
		if f, ok := flags[w]; ok {
			// Whole names only: "Prompt" is not "PromptLengths".
			msg = regexp.MustCompile(`\b`+regexp.QuoteMeta(w)+`\b`).ReplaceAllLiteralString(msg, f)
		}
	}
	return msg
}

// flagErrors rewrites the traces.FieldErrors in err (one, or joined) that
// name a field in flags to name the command's flag instead of a Go field.
func flagErrors(cmd string, flags map[string]string, err error) error {
	if fe, ok := err.(*traces.FieldError); ok {
		if f, ok := flags[fe.Field]; ok {
			return fmt.Errorf("%s: %s: %s", cmd, f, withFlags(fe, flags))
		}
		return err
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range j.Unwrap() {
			errs = append(errs, flagErrors(cmd, flags, e))
		}
		return errors.Join(errs...)
	}
	return err
}
