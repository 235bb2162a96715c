package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A redirect answers no completion: the client gets it unchanged and the
// row is a failure naming the status, not a success with no output.
func TestRedirectIsAFailure(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v2/chat/completions", http.StatusTemporaryRedirect)
	}))
	defer up.Close()
	cfg := DefaultConfig()
	cfg.Upstream = up.URL
	cfg.Out = filepath.Join(t.TempDir(), "run.jsonl")
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Post(srv.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != "/v2/chat/completions" {
		t.Errorf("client got %d to %q, want the 307 unchanged", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, rows, err := traces.ReadAll(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.HTTPStatus != 307 || r.Error != "HTTP 307: redirects to /v2/chat/completions" || r.Succeeded() || r.LastToken != traces.Missing {
		t.Fatalf("row: status %d, error %q, succeeded %v, last token %d; want a failure naming the redirect", r.HTTPStatus, r.Error, r.Succeeded(), r.LastToken)
	}
}

// A stream that ends cleanly but without data: [DONE] was cut short (the
// engine died and its server closed the response): a failure, as the live
// client records it (no_done), not a success.
func TestStreamWithoutDoneIsAFailure(t *testing.T) {
	const stream = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":1}}\n\n"
	r := recordPassedStream(t, "stream without [DONE]", stream)
	if r.Succeeded() || !strings.Contains(r.Error, "[DONE]") {
		t.Fatalf("succeeded %v, error %q: want a failure naming the missing [DONE]", r.Succeeded(), r.Error)
	}
	// A failure has empty metrics, as record writes one.
	if r.FirstToken != traces.Missing || r.Chunks != traces.Missing || r.UsageOutput != traces.Missing || r.TokenTimes != nil {
		t.Errorf("failed row keeps metrics: first token %d, chunks %d, usage output %d, token times %v", r.FirstToken, r.Chunks, r.UsageOutput, r.TokenTimes)
	}
	if r.PromptTokens != 21 {
		t.Errorf("prompt tokens %d, want the usage's 21: the request's size stays", r.PromptTokens)
	}
}
