package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// TestRecordCommand runs `servesim record` in process with a settings file
// overridden by flags, against a server that refuses the key, and scans
// stdout, stderr and every file for the key, and for the password and
// query of the base URL and the metrics URL.
func TestRecordCommand(t *testing.T) {
	const key = "sk-servesim-CLILEAK-0b7e"
	t.Setenv("SERVESIM_CLI_KEY", key)
	srv := replaytest.New(replaytest.Options{APIKey: key, Fault: func(n int) replaytest.Fault {
		if n == 2 {
			return replaytest.Status // one 500, counted, the run goes on
		}
		return replaytest.OK
	}})
	defer srv.Close()
	dir := t.TempDir()
	var in []*traces.Request
	for i := range 4 {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = "q"+string(rune('0'+i)), int64(i)*int64(time.Millisecond), 50, 3
		in = append(in, r)
	}
	trace := filepath.Join(dir, "in.csv")
	if err := traces.WriteAll(trace, traces.Meta{}, in); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, "s.toml")
	os.WriteFile(settings, []byte(`base_url = "http://127.0.0.1:1/v1"
model = "servesim-tiny"
api_key_env = "SERVESIM_CLI_KEY"
endpoint = "completions"
timeout = "5s"
`), 0o644)
	out := filepath.Join(dir, "out.parquet")
	app := newApp()
	var stdout, stderr bytes.Buffer
	app.Writer, app.ErrWriter = &stdout, &stderr
	err := app.RunContext(context.Background(), []string{"servesim", "record", "--settings", settings,
		"--base-url", secretURL(t, srv.BaseURL()), "--engine-metrics", secretURL(t, srv.URL), "--endpoint", "chat", "--trace", trace, "--out", out,
		"--save-raw", filepath.Join(dir, "raw"), "--tokens-per-byte", "1", "--prompt-overhead", "20", "--repeat", "2", "--slo", "ttft=10s"})
	if err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"run 1: sent 4, succeeded 3, failed 1", "server_error 1", "spread over runs", "TTFT",
		"3 of 4 requests within ttft=10s", "  goodput  "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	meta, got, err := traces.ReadAll(filepath.Join(dir, "out.run2.parquet"))
	if err != nil || len(got) != 4 || got[0].UsagePrompt != 50 {
		t.Fatalf("output: %v, %d rows", err, len(got))
	}
	if meta.ToolVersion != version {
		t.Errorf("tool_version = %q, want this build's %q", meta.ToolVersion, version)
	}
	for name, b := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
		if strings.Contains(b, "CLILEAK") {
			t.Errorf("%s contains the API key", name)
		}
		checkNoURLSecret(t, name, b, "")
	}
	if host := strings.TrimPrefix(srv.URL, "http://"); !strings.Contains(stderr.String(), "http://xxxxx@"+host+"/metrics") {
		t.Errorf("stderr does not name the metrics URL, user and password masked:\n%s", stderr.String())
	}
	if n := replaytest.CheckNoSecret(t, "record", "", dir, "CLILEAK"); n < 8 {
		t.Errorf("only %d files written", n)
	}
	checkNoURLSecret(t, "record", "", dir)
}

func TestRecordCommandErrors(t *testing.T) {
	out, code, err := runCode(t, "record", "--arrival", "closed", "--trace", "x.csv", "--out", "y.csv")
	if code != 2 || !strings.Contains(err.Error(), "--base-url: required") || !strings.Contains(err.Error(), "--concurrency: must be ≥ 1") {
		t.Errorf("want errors naming the flags, exit status 2; got %d, %v\n%s", code, err, out)
	}
	out, code, err = runCode(t, "record", "--slo", "ttft=2,tpot=1s", "--trace", "x.csv", "--out", "y.csv")
	if code != 2 || !strings.Contains(err.Error(), `--slo: ttft="2": want a positive duration`) {
		t.Errorf("--slo ttft=2: want an error naming --slo and the limit, exit status 2; got %d, %v\n%s", code, err, out)
	}
}

// record proxy's bad flags are named as flags, not as the Go fields they
// set, and exit with status 2 before anything listens.
func TestProxyFlagErrorsNameTheFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cap.parquet")
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"--upstream", "localhost:8000", "--out", out}, "--upstream: ", "Upstream"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", filepath.Join(dir, "cap.txt")}, "--out: ", "Out"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", filepath.Join(dir, "none", "cap.parquet")}, "--out: " + filepath.Join(dir, "none", "cap.parquet") + ": directory " + filepath.Join(dir, "none") + " does not exist", "partial"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--block-size", "0"}, "--block-size: must be in (0, 10000000], got 0", "BlockSize"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--block-size", "10000001"}, "--block-size: must be in (0, 10000000], got 10000001", "BlockSize"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--tokens-per-byte", "9"}, "--tokens-per-byte: must be in (0, 4], got 9", "TokensPerByte"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--flush-interval", "0s"}, "--flush-interval: must be in (0, 1s], got 0s", "FlushInterval"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--flush-interval", "2s"}, "--flush-interval: must be in (0, 1s], got 2s", "FlushInterval"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--shutdown-grace", "-1s"}, "--shutdown-grace: must be ≥ 0, got -1s", "ShutdownGrace"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--max-request-body", "0"}, "--max-request-body: must be > 0, got 0", "MaxRequestBody"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--body-timeout", "0s"}, "--body-timeout: must be > 0, got 0s", "BodyTimeout"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--session-header", "X-Session-Id:"}, `--session-header: "X-Session-Id:" is not a header name`, "SessionHeader"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--out", out, "--class-header", "X Tenant"}, `--class-header: "X Tenant" is not a header name`, "ClassHeader"},
	} {
		_, code, err := runCode(t, append([]string{"record", "proxy", "--listen", "127.0.0.1:0"}, c.args...)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "record proxy: "+c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("%v: want exit status 2 and an error naming %q, not %q; got %d, %v", c.args, c.want, c.not, code, err)
		}
	}
	if es := testfs.Names(t, dir); len(es) != 0 {
		t.Errorf("a refused proxy left %v", es)
	}
}

// record and calibrate check their files and settings before the first
// request reaches the engine, and create no directory.
func TestRecordAndCalibrateCheckFilesFirst(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	tr := writeFile(t, dir, "in.csv", smallCSV)
	missing := filepath.Join(dir, "missing")
	live := []string{"--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY"}
	with := func(args ...string) []string { return append(append([]string{}, live...), args...) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{append([]string{"record"}, with("--trace", filepath.Join(dir, "nope.csv"), "--out", filepath.Join(dir, "o.csv"))...), "--trace"},
		{append([]string{"record"}, with("--trace", tr, "--out", filepath.Join(missing, "o.csv"))...), "does not exist"},
		{append([]string{"record"}, with("--trace", tr, "--out", dir+"/./in.csv")...), "is the input trace"},
		{append([]string{"record"}, with("--trace", tr, "--out", filepath.Join(dir, "o.csv"), "stray", "--repeat", "2")...), `unexpected argument "stray"`},
		{append([]string{"calibrate"}, with("--out", filepath.Join(missing, "p.json"))...), "does not exist"},
		{append([]string{"calibrate"}, with("--out", filepath.Join(dir, "p.json"), "--trace-out", filepath.Join(missing, "t"))...), "does not exist"},
		{append([]string{"calibrate"}, with("--out", filepath.Join(dir, "p.json"), "--held-out", "-1")...), "--held-out -1"},
		{append([]string{"calibrate"}, with("--out", filepath.Join(dir, "p.json"), "--window", "-1")...), "--window -1"},
	} {
		text, _, err := runCode(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q\n%s", c.args, err, c.want, text)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
	if got := testfs.Names(t, dir); len(got) != 1 {
		t.Errorf("refused runs left %v", got)
	}
	if b, _ := os.ReadFile(tr); string(b) != smallCSV {
		t.Errorf("a refused record changed its trace:\n%s", b)
	}
}

// The settings keys record --help lists are the ones LoadSettings takes.
func TestRecordHelpSettingsKeys(t *testing.T) {
	help, err := run(t, "record", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(help, "flag names with _") || !strings.Contains(help, "[text_model]") {
		t.Errorf("help:\n%s", help)
	}
	dir := t.TempDir()
	settings := writeFile(t, dir, "s.toml", "base_url = \"http://x/v1\"\ntime_scale = 2\nprompt_salt = 3\nflush_every = \"1s\"\n"+
		"[text_model]\ntokens_per_byte = 0.5\noverhead = 20\nprefix = 7\n")
	cfg := replay.DefaultConfig()
	if err := replay.LoadSettings(settings, &cfg); err != nil || cfg.Text.TokensPerByte != 0.5 || cfg.Text.Prefix != 7 || cfg.TimeScale != 2 {
		t.Errorf("LoadSettings: %v, %+v", err, cfg)
	}
	for _, key := range []string{"tokens_per_byte = 1", "gpu = true", "telemetry_interval = \"1s\""} {
		if err := replay.LoadSettings(writeFile(t, dir, "bad.toml", key+"\n"), &cfg); err == nil {
			t.Errorf("top-level %s: accepted", key)
		}
	}
}

// A bad value the settings file gave is named by its key in that file, not
// by a flag the command line did not use; a flag that overrode the file
// is named as the flag.
func TestRecordSettingsErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	tr := writeFile(t, dir, "in.csv", smallCSV)
	settings := writeFile(t, dir, "s.toml", "concurrency = -3\ntemperature = 7.0\nflush_every = \"5s\"\n")
	args := []string{"record", "--settings", settings, "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--trace", tr, "--out", filepath.Join(dir, "o.csv")}
	_, code, err := runCode(t, append(args, "--temperature", "9")...)
	if code != 2 || err == nil {
		t.Fatalf("exit %d, err %v: want exit 2", code, err)
	}
	for _, want := range []string{"record: concurrency in " + settings + ": must be ≥ 0", "record: --temperature: must be in [0, 2], got 9",
		"record: flush_every in " + settings + ": must be in (0, 1s]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %v\nwant it to hold %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "--concurrency") {
		t.Errorf("err %v names --concurrency, which was not given", err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// A sampling interval that is not positive is refused, not replaced by
// 1 s without a word.
func TestRecordRefusesTelemetryInterval(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	tr := writeFile(t, dir, "in.csv", smallCSV)
	for _, iv := range []string{"0s", "-1s"} {
		_, code, err := runCode(t, "record", "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
			"--trace", tr, "--out", filepath.Join(dir, "o.csv"), "--engine-metrics", url, "--telemetry-interval", iv)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "--telemetry-interval "+iv) {
			t.Errorf("--telemetry-interval %s: exit %d, err %v; want exit 2 naming the flag", iv, code, err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine or its metrics", n)
	}
}

// A sampling interval without --gpu or --engine-metrics samples nothing:
// refused, as --gpu-devices without --gpu is, not ignored.
func TestRecordTelemetryIntervalNeedsASampler(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	tr := writeFile(t, dir, "in.csv", smallCSV)
	_, code, err := runCode(t, "record", "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--trace", tr, "--out", filepath.Join(dir, "o.csv"), "--telemetry-interval", "250ms")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--telemetry-interval needs --gpu or --engine-metrics") {
		t.Errorf("exit %d, err %v; want exit 2 saying --telemetry-interval needs --gpu or --engine-metrics", code, err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// A run in which every request failed measured nothing: its trace is
// written, the failures in it, and record exits 1 naming the run, so a
// script does not take the run for a measurement. A run with one success
// exits 0.
func TestRecordExitsNonZeroWhenNoRequestSucceeded(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	for _, c := range []struct {
		fail func(int) bool
		code int
	}{{func(int) bool { return true }, 1}, {func(i int) bool { return i > 0 }, 0}} {
		srv := replaytest.New(replaytest.Options{Status: http.StatusServiceUnavailable, Fault: func(i int) replaytest.Fault {
			if c.fail(i) {
				return replaytest.Status
			}
			return replaytest.OK
		}})
		out := filepath.Join(dir, fmt.Sprintf("o%d.csv", c.code))
		stdout, code, err := runCode(t, "record", "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
			"--tokens-per-byte", "1", "--prompt-overhead", "20", "--trace", tr, "--out", out)
		srv.Close()
		if code != c.code {
			t.Fatalf("exit %d, err %v, want %d\n%s", code, err, c.code, stdout)
		}
		if c.code != 0 && (err == nil || !strings.Contains(err.Error(), "run 1: none of the 3 requests succeeded") || !strings.Contains(err.Error(), "server_error 3")) {
			t.Errorf("err %v: want it to name the run, the requests and their failures", err)
		}
		_, got, err := traces.ReadAll(out)
		if err != nil {
			t.Fatalf("the trace of a run whose requests failed: %v", err)
		}
		if len(got) != 3 {
			t.Errorf("%d rows written, want 3", len(got))
		}
	}
}

// record proxy's summary names where the rows are: not --out when the
// trace was never written there.
func TestProxySummaryDoesNotClaimAnUnwrittenTrace(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cap.parquet")
	writeFile(t, dir, "cap.parquet.partial.arrows", "") // an earlier session's rows: the proxy refuses to start
	stdout, _, err := runCode(t, "record", "proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("want the stale staging file refused, got %v", err)
	}
	if strings.Contains(stdout, "-> "+out) {
		t.Errorf("summary %q claims the trace is at %s", stdout, out)
	}
}

// An address record proxy cannot listen on is named as --listen's; one
// that does not parse (no port, a port out of range) is a usage error.
func TestProxyListenErrorNamesTheFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cap.parquet")
	for _, addr := range []string{"bogus", ":99999", "127.0.0.1:port"} {
		_, code, err := runCode(t, "record", "proxy", "--listen", addr, "--upstream", "http://127.0.0.1:1", "--out", out)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "record proxy: --listen "+addr+": ") {
			t.Errorf("--listen %s: exit %d, err %v; want exit 2 naming --listen and its address", addr, code, err)
		}
	}
}

// A session ended before any request finished writes nothing: the summary
// says so, and an earlier --out stays as it was.
func TestProxySessionWithNothingFinishedSaysSo(t *testing.T) {
	dir := t.TempDir()
	out := writeFile(t, dir, "cap.jsonl", "earlier\n")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app := newApp()
	var stdout bytes.Buffer
	app.Writer, app.ErrWriter = &stdout, &syncBuffer{mark: "Ctrl-C to stop", hit: cancel}
	if err := app.RunContext(ctx, []string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--out", out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "none finished: no trace written, an earlier "+out+" left as it was") {
		t.Errorf("summary %q: want it to say no trace was written", stdout.String())
	}
	if got := readText(t, out); got != "earlier\n" {
		t.Errorf("%s holds %q: want the earlier file", out, got)
	}
}

// With no earlier --out, the summary of a session where nothing finished
// names none: a user would look for a file that is not there.
func TestProxySessionWithNothingFinishedNamesNoEarlierFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cap.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app := newApp()
	var stdout bytes.Buffer
	app.Writer, app.ErrWriter = &stdout, &syncBuffer{mark: "Ctrl-C to stop", hit: cancel}
	if err := app.RunContext(ctx, []string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--out", out}); err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); !strings.Contains(got, "(none finished: no trace written)") || strings.Contains(got, "earlier") {
		t.Errorf("summary %q: want it to say no trace was written, and no earlier %s", got, out)
	}
}

// A run interrupted before any measured request completed writes no
// trace: record says so, and that an earlier --out stays as it was.
func TestRecordInterruptedBeforeAnyRowSaysNoTraceWritten(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(int) replaytest.Fault { return replaytest.Hang }})
	defer srv.Close()
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	out := writeFile(t, dir, "out.jsonl", "earlier\n")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app := newApp()
	var stdout bytes.Buffer
	stderr := &syncBuffer{mark: "as they complete", hit: cancel}
	app.Writer, app.ErrWriter = &stdout, stderr
	err := app.RunContext(ctx, []string{"servesim", "record", "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--tokens-per-byte", "1", "--prompt-overhead", "20", "--trace", tr, "--out", out})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("record: %v, want the interrupt", err)
	}
	if want := "run 1: interrupted: no trace written, an earlier " + out + " left as it was"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q: want %q", stderr.String(), want)
	}
	if got := readText(t, out); got != "earlier\n" {
		t.Errorf("%s holds %q: want the earlier file", out, got)
	}
}

// A key no HTTP header can carry is a usage error of record and calibrate,
// as of verify, found before any file is made or request sent.
func TestLiveVerbsRefuseAnUnsendableKeyUpFront(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	trace := writeFile(t, dir, "in.csv", smallCSV)
	t.Setenv("SERVESIM_NL_KEY", "sk-servesim-NLKEY-0123456789\n")
	common := []string{"--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NL_KEY", "--tokens-per-byte", "1"}
	for _, args := range [][]string{
		append([]string{"record", "--trace", trace, "--out", filepath.Join(dir, "out.parquet")}, common...),
		append([]string{"calibrate", "--out", filepath.Join(dir, "p.json")}, common...),
	} {
		text, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "$SERVESIM_NL_KEY holds a control character") || strings.Contains(err.Error()+text, "NLKEY-") {
			t.Errorf("%s: exit %d, err %v; want exit 2 naming the variable, not the key\n%s", args[0], code, err, text)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests sent; want none", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in %s; want only the input trace", len(entries), dir)
	}
}

// A URL whose port is out of range does not parse as an address: record's
// --base-url and the proxy's --upstream refuse it before any request.
func TestLiveURLPortOutOfRangeIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "in.csv", smallCSV)
	for _, args := range [][]string{
		{"record", "--trace", trace, "--out", filepath.Join(dir, "out.parquet"), "--base-url", "http://127.0.0.1:99999/v1", "--model", "m", "--tokens-per-byte", "1"},
		{"record", "--trace", trace, "--out", filepath.Join(dir, "out.parquet"), "--base-url", "http://127.0.0.1:0/v1", "--model", "m", "--tokens-per-byte", "1"},
		{"record", "proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:99999", "--out", filepath.Join(dir, "cap.parquet")},
	} {
		_, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "port") {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming the port", args, code, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in %s; want only the input trace", len(entries), dir)
	}
}
