package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A completion path with a trailing slash is no completion endpoint to an
// OpenAI-compatible server (those built on FastAPI redirect it to the
// path without the slash, others answer 404): it is forwarded unchanged
// and not recorded, or a client that follows the redirect would be
// recorded twice; but it is counted, not dropped unseen.
func TestTrailingSlashIsForwardedAndCounted(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/") {
			http.Redirect(w, r, strings.TrimSuffix(r.URL.Path, "/"), http.StatusTemporaryRedirect)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`)
	}))
	t.Cleanup(up.Close)
	cfg := DefaultConfig()
	cfg.Upstream = up.URL
	cfg.Out = filepath.Join(t.TempDir(), "run.jsonl")
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	for _, path := range []string{"/v1/chat/completions/", "/v1/completions/"} {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(`{"model":"m","prompt":"hi","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d after the redirect, want 200", path, resp.StatusCode)
		}
	}
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "/v1/chat/completions/ /v1/chat/completions /v1/completions/ /v1/completions"; strings.Join(paths, " ") != want {
		t.Errorf("upstream got %v, want %s", paths, want)
	}
	_, rows, err := traces.ReadAll(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !rows[0].Succeeded() || !rows[1].Succeeded() {
		t.Fatalf("%d rows, want the 2 redirected requests, each a success", len(rows))
	}
	if st := p.Stats(); st.Rows != 2 || st.NotRecorded != 2 {
		t.Errorf("stats: %d rows, %d not recorded; want 2 and 2", st.Rows, st.NotRecorded)
	}
}
