package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The query reaches the upstream as the client sent it, on recorded and
// pass-through endpoints alike, parameters Go's own parser refuses (a ';'
// separator, a bad escape) included, and after the upstream URL's own.
func TestQueryPassesUnchanged(t *testing.T) {
	var mu sync.Mutex
	var got []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		got = append(got, r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(up.Close)
	cfg := DefaultConfig()
	cfg.Upstream = up.URL + "/?api-version=2024-02-01"
	cfg.Out = filepath.Join(t.TempDir(), "run.jsonl")
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	const query = "a=1;b=2&c=%zz&d=4"
	for _, path := range []string{"/v1/chat/completions", "/v1/embeddings"} {
		resp, err := http.Post(srv.URL+path+"?"+query, "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	const want = "api-version=2024-02-01&" + query
	if len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("upstream got queries %q, want %q for each", got, want)
	}
}
