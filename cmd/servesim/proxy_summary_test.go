package main

import (
	"bytes"
	"context"
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
