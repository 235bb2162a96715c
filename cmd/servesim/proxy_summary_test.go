package main

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A session of one request counts it in the singular.
func TestProxySummaryCountsOneRequest(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app := newApp()
	var stdout bytes.Buffer
	stderr := &syncBuffer{mark: "Ctrl-C to stop"}
	stderr.hit = sendOneRequestOnStart(t, stderr, func() {}, cancel)
	app.Writer, app.ErrWriter = &stdout, stderr
	if err := app.RunContext(ctx, []string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0",
		"--upstream", "http://127.0.0.1:1", "--out", filepath.Join(dir, "p.csv")}); err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); !strings.HasPrefix(got, "1 request recorded (1 failed), ") {
		t.Errorf("summary:\n%s\nwant it to start \"1 request recorded (1 failed), \"", got)
	}
}

// A POST to a completion path with a trailing slash is forwarded, not
// recorded, and the summary says how many there were.
func TestProxySummaryCountsTrailingSlashPosts(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app := newApp()
	var stdout bytes.Buffer
	stderr := &syncBuffer{mark: "Ctrl-C to stop"}
	stderr.hit = func() {
		addr := proxyAddr(stderr.b.String())
		go func() { // the proxy logs to stderr, whose lock this hook runs under
			defer cancel()
			if resp, err := http.Post("http://"+addr+"/v1/chat/completions/", "application/json", strings.NewReader(`{"model":"m"}`)); err == nil {
				resp.Body.Close()
			}
		}()
	}
	app.Writer, app.ErrWriter = &stdout, stderr
	app.RunContext(ctx, []string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0",
		"--upstream", "http://127.0.0.1:1", "--out", filepath.Join(dir, "p.csv")})
	if got := stdout.String(); !strings.Contains(got, "\n1 request to a completion path with a trailing slash forwarded, not recorded") {
		t.Errorf("summary:\n%s\nwant it to count the request to /v1/chat/completions/", got)
	}
}
