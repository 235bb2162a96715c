package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A URL's user (often a token), password and query are secrets as an API
// key is: they are used to connect and never shown.
const (
	urlUser     = "USERLEAK-2b6d"
	urlPassword = "PWLEAK-7f3a"
	urlQuery    = "QLEAK-c91e"
)

// secretURL is base (http://host:port/path) with urlUser and urlPassword
// added and a query holding urlQuery.
func secretURL(t *testing.T, base string) string {
	t.Helper()
	scheme, rest, ok := strings.Cut(base, "://")
	if !ok {
		t.Fatalf("base URL %q", base)
	}
	return scheme + "://" + urlUser + ":" + urlPassword + "@" + rest + "?api-key=" + urlQuery + "#" + urlQuery
}

// checkNoURLSecret fails if out, or any file under dir ("" for none),
// holds the user, the password or the query secret.
func checkNoURLSecret(t *testing.T, what, text, dir string) {
	t.Helper()
	replaytest.CheckNoSecret(t, what, text, dir, urlUser, urlPassword, urlQuery)
}

// syncBuffer is a bytes.Buffer safe for the proxy's goroutines; it calls
// hit once, the first time the text written holds mark.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	mark string
	hit  func()
	once sync.Once
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	if s.mark != "" && strings.Contains(s.b.String(), s.mark) {
		s.once.Do(s.hit)
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProxyStartLineHidesURLSecrets(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app := newApp()
	stderr := &syncBuffer{mark: "Ctrl-C to stop", hit: cancel}
	var stdout syncBuffer
	app.Writer, app.ErrWriter = &stdout, stderr
	err := app.RunContext(ctx, []string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0",
		"--upstream", secretURL(t, "http://127.0.0.1:1/v1"), "--out", filepath.Join(dir, "p.csv")})
	if err != nil && ctx.Err() == nil {
		t.Fatalf("proxy: %v\n%s", err, stderr.String())
	}
	out := stderr.String() + stdout.String()
	if !strings.Contains(out, "-> http://xxxxx@127.0.0.1:1/v1, recording") {
		t.Errorf("the start line does not name the upstream, user and password masked:\n%s", out)
	}
	checkNoURLSecret(t, "record proxy", out, dir)
}

// --engine-metrics that is not an http(s) URL is refused naming what was
// given, its user and password masked and its query left out.
func TestEngineMetricsFlagErrorHidesURLSecrets(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	url, _ := countingServer(t)
	for _, bad := range []string{secretURL(t, "ftp://metrics-host:9000/metrics"), secretURL(t, "http://metrics-host:port/metrics")} {
		out, code, err := runCode(t, "record", "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
			"--trace", tr, "--out", filepath.Join(dir, "o.csv"), "--engine-metrics", bad)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "--engine-metrics") {
			t.Fatalf("%s: want a usage error naming --engine-metrics; got %d, %v\n%s", bad, code, err, out)
		}
		if !strings.Contains(err.Error(), "metrics-host") && !strings.Contains(err.Error(), "not shown") {
			t.Errorf("%s: the error neither names the host nor says the URL is not shown: %v", bad, err)
		}
		checkNoURLSecret(t, "record --engine-metrics", out+err.Error(), dir)
	}
}

// calibrate names the engine it runs against, user and password masked
// and query left out, on stdout, in its errors and in every file it
// leaves.
func TestCalibrateHidesURLSecrets(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(int) replaytest.Fault { return replaytest.Status }})
	defer srv.Close()
	for _, base := range []string{"http://127.0.0.1:1/v1", srv.BaseURL()} {
		dir := t.TempDir()
		out, err := run(t, "calibrate", "--out", filepath.Join(dir, "p.json"), "--base-url", secretURL(t, base),
			"--model", "m", "--api-key-env", "SERVESIM_NO_KEY", "--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64")
		if err == nil {
			t.Fatalf("%s: no error from an engine that fails every request", base)
		}
		shown := strings.Replace(base, "http://", "http://xxxxx@", 1)
		if !strings.Contains(out, "running against "+shown+" (model m)") {
			t.Errorf("%s: stdout does not name the engine as %s:\n%s", base, shown, out)
		}
		checkNoURLSecret(t, "calibrate", out+err.Error(), dir)
	}
}

// The default health URL is the API root's /models, with the root's
// password and query (which the engine may need); a query no longer
// swallows the /models.
func TestVerifyDefaultHealthURL(t *testing.T) {
	for base, want := range map[string]string{
		"http://127.0.0.1:8000/v1":                        "http://127.0.0.1:8000/v1/models",
		"http://127.0.0.1:8000/v1/":                       "http://127.0.0.1:8000/v1/models",
		"http://me:pw@h:8000/v1?api-key=k&x=1":            "http://me:pw@h:8000/v1/models?api-key=k&x=1",
		"https://h/engine/v1?api-version=2024-06-01#frag": "https://h/engine/v1/models?api-version=2024-06-01",
	} {
		if got := modelsURL(base); got != want {
			t.Errorf("modelsURL(%q) = %q, want %q", base, got, want)
		}
	}
}

// An --upstream ending in /v1, the form record's --base-url takes, would
// send every request to /v1/v1/...: the proxy says so as it starts.
func TestProxyWarnsOfAnUpstreamEndingInV1(t *testing.T) {
	for upstream, warn := range map[string]bool{"http://127.0.0.1:1/v1/": true, "http://127.0.0.1:1": false, "http://127.0.0.1:1/api": false} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		app := newApp()
		stderr := &syncBuffer{mark: "Ctrl-C to stop", hit: cancel}
		app.Writer, app.ErrWriter = io.Discard, stderr
		err := app.RunContext(ctx, []string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0",
			"--upstream", upstream, "--out", filepath.Join(t.TempDir(), "p.csv")})
		cancel()
		if err != nil && ctx.Err() == nil {
			t.Fatalf("%s: %v\n%s", upstream, err, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "/v1/v1/chat/completions"); got != warn {
			t.Errorf("--upstream %s: warned %v, want %v:\n%s", upstream, got, warn, stderr.String())
		}
	}
}

// A token with a '/' typed into the URL (https://TOK/EN@host/v1) parses as
// host TOK and a path holding the rest: it is refused before any request,
// as a failed lookup of host TOK would print the token's start.
func TestTokenWithSlashInURLIsRefusedUnshown(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,30,2\n")
	bad := "http://" + urlUser + "/" + urlPassword + "@127.0.0.1:1/v1"
	for name, args := range map[string][]string{
		"record": {"record", "--trace", trace, "--out", filepath.Join(dir, "out.csv"), "--base-url", bad, "--model", "m"},
		"proxy":  {"record", "proxy", "--listen", "127.0.0.1:0", "--upstream", bad, "--out", filepath.Join(dir, "p.csv")},
	} {
		out, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "'@' in its path") {
			t.Errorf("%s: exit %d, err %v: want 2 and the '@' named", name, code, err)
		}
		msg := out
		if err != nil {
			msg += err.Error()
		}
		checkNoURLSecret(t, name, msg, dir)
	}
}
