package proxy

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Concurrent requests reuse the upstream connections the earlier ones
// left idle: a proxy that kept only a couple would open (and leave in
// TIME_WAIT) a new connection for most requests under load, adding a
// handshake to each one's time to first token and, at a high rate,
// running out of local ports.
func TestConcurrentRequestsReuseUpstreamConnections(t *testing.T) {
	var opened atomic.Int64
	upSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		time.Sleep(20 * time.Millisecond) // all of a round are in flight together
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
	}))
	upSrv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	upSrv.Start()
	t.Cleanup(upSrv.Close)
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = upSrv.URL })
	const concurrent, rounds = 8, 3
	for range rounds {
		var wg sync.WaitGroup
		for range concurrent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.post(t, "/v1/chat/completions", chatBody("m", true, false, "hi"))
			}()
		}
		wg.Wait()
	}
	r.finish(t)
	if n := opened.Load(); n > concurrent {
		t.Errorf("%d rounds of %d concurrent requests opened %d upstream connections, want at most %d", rounds, concurrent, n, concurrent)
	}
}
