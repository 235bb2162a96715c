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
	var stderr *syncBuffer
	stderr = &syncBuffer{mark: "Ctrl-C to stop", hit: func() {
		addr := proxyAddr(stderr.b.String())
		if addr == "" {
			t.Errorf("no listening address in the start line:\n%s", stderr.b.String())
			cancel()
			return
		}
		go func() { // the proxy logs to stderr, whose lock this hook runs under
			// Failed upstream (nothing listens there), but finished.
			if resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`)); err == nil {
				resp.Body.Close()
			}
			cancel()
		}()
	}}
	app.Writer, app.ErrWriter = &stdout, stderr
	if err := app.RunContext(ctx, []string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0",
		"--upstream", "http://127.0.0.1:1", "--out", filepath.Join(dir, "p.csv")}); err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); !strings.HasPrefix(got, "1 request recorded (1 failed), ") {
		t.Errorf("summary:\n%s\nwant it to start \"1 request recorded (1 failed), \"", got)
	}
}
