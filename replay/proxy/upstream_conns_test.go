package proxy

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Once Serve returns, the proxy holds no connection to the upstream open:
// its idle keep-alive connections (and their goroutines) would otherwise
// outlive it by the transport's idle timeout, 90 s.
func TestServeClosesItsUpstreamConnections(t *testing.T) {
	var open atomic.Int64
	upSrv := httptest.NewUnstartedServer(&upstream{t: t})
	upSrv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	upSrv.Start()
	defer upSrv.Close()
	cfg := DefaultConfig()
	cfg.Upstream = upSrv.URL
	cfg.Out = filepath.Join(t.TempDir(), "run.jsonl")
	p := startServe(t, cfg)
	client := &http.Client{Transport: &http.Transport{}}
	for range 3 {
		resp, err := client.Post(p.chatURL(), "application/json", strings.NewReader(chatBody("m", true, true, "hi")))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	client.CloseIdleConnections()
	if open.Load() == 0 {
		t.Fatal("the upstream saw no connection")
	}
	if _, err := p.stop(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Second); open.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := open.Load(); n > 0 {
		t.Errorf("%d connections to the upstream still open after Serve returned", n)
	}
}
