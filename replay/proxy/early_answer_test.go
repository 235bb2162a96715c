package proxy

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An upstream that answers a pass-through request before reading its body
// (an unknown method refused, an auth check) must not crash the client's
// connection: the server reads the next request from it.
func TestPassThroughAnsweredBeforeItsBody(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusNotImplemented)
	}))
	t.Cleanup(up.Close)
	cfg := DefaultConfig()
	cfg.Upstream = up.URL
	cfg.Out = filepath.Join(t.TempDir(), "run.jsonl")
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(p)
	var serverLog lockedBuffer
	srv.Config.ErrorLog = log.New(&serverLog, "", 0)
	srv.Start()
	// Under the 256 KiB the server drains to keep a connection: it is kept.
	body := strings.Repeat("x", 64<<10)
	for i := 0; i < 50; i++ {
		req, _ := http.NewRequest(http.MethodPut, srv.URL+"/v1/chat/completions", strings.NewReader(body))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("request %d: %v\nserver log:\n%.500s", i, err, serverLog.String())
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotImplemented {
			t.Fatalf("request %d: status %d, want the upstream's 501", i, resp.StatusCode)
		}
	}
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(serverLog.String(), "panic") {
		t.Errorf("the server panicked:\n%.2000s", serverLog.String())
	}
}
