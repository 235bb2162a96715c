package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A stream still running when the shutdown grace runs out is cut by the
// proxy: its row says so, not that its client went away.
func TestStreamCutAtShutdownIsNotAClientDisconnect(t *testing.T) {
	up := &upstream{t: t, gate: make(chan struct{}), received: make(chan struct{}, 1)}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	defer close(up.gate)
	cfg := DefaultConfig()
	cfg.Upstream = upSrv.URL
	cfg.ShutdownGrace = 20 * time.Millisecond
	cfg.Out = filepath.Join(t.TempDir(), "run.jsonl")
	p := startServe(t, cfg)
	// A request that finishes first: else the session captured nothing
	// and writes no trace.
	resp, err := http.Post(p.chatURL(), "application/json", strings.NewReader(chatBody("m", false, true, "first")))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	<-up.received
	go p.sendStreamUntilCut() // the client reads on until the proxy cuts the stream
	<-up.received
	if _, err := p.stop(); err != nil {
		t.Fatal(err)
	}
	_, rows, err := traces.ReadAll(cfg.Out)
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v: %d rows, want 2", err, len(rows))
	}
	if got := rows[0].Error; got != "" {
		t.Errorf("first request: error %q, want none", got)
	}
	if got := rows[1].Error; got != "cut at shutdown: the shutdown grace ran out" {
		t.Errorf("error %q, want the stream cut at shutdown", got)
	}
}
