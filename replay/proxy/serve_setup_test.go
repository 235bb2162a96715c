package proxy

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

// servedProxy is a session Serve runs in the background for a test.
type servedProxy struct {
	addr   string
	cancel context.CancelFunc
	done   chan servedResult
}

type servedResult struct {
	stats Stats
	err   error
}

// startServe runs Serve for cfg on a fresh local port, logging nowhere.
func startServe(t *testing.T, cfg Config) *servedProxy {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &servedProxy{addr: ln.Addr().String(), cancel: cancel, done: make(chan servedResult, 1)}
	go func() {
		st, err := Serve(ctx, ln, cfg)
		p.done <- servedResult{st, err}
	}()
	return p
}

// chatURL is where the proxy takes chat completions.
func (p *servedProxy) chatURL() string {
	return "http://" + p.addr + "/v1/chat/completions"
}

// stop ends the session, as an interrupt does, and returns what Serve
// returned once it has.
func (p *servedProxy) stop() (Stats, error) {
	p.cancel()
	r := <-p.done
	return r.stats, r.err
}

// sendStreamUntilCut sends one chat stream through p and reads it until
// it ends; the error, if any, is dropped, since the proxy may cut the
// stream at shutdown.
func (p *servedProxy) sendStreamUntilCut() {
	resp, err := http.Post(p.chatURL(), "application/json", strings.NewReader(chatBody("m", true, true, "hi")))
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
