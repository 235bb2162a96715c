package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A staging stream left by an earlier session stops record proxy before
// it listens: it must not announce a session it will not run, nor report
// one that recorded nothing.
func TestProxyStaleStagingRefusedBeforeListening(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.csv")
	stale := out + ".partial.arrows"
	if err := os.WriteFile(stale, []byte("rows of an earlier session"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app := newApp()
	var stdout, stderr bytes.Buffer
	app.Writer, app.ErrWriter = &stdout, &stderr
	err := app.RunContext(ctx, []string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0",
		"--upstream", "http://127.0.0.1:1", "--out", out})
	if err == nil || !strings.Contains(err.Error(), stale) {
		t.Fatalf("err %v: want one naming %s", err, stale)
	}
	if strings.Contains(stderr.String(), "proxying") {
		t.Errorf("stderr announces a session that never ran:\n%s", stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout reports a session that never ran:\n%s", stdout.String())
	}
	if b, _ := os.ReadFile(stale); string(b) != "rows of an earlier session" {
		t.Errorf("the stale staging stream changed: %q", b)
	}
}
