package replay

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// endlessServer streams content chunks (and, if roleOnly, chunks with no
// content) until the client goes away, as a faulty server that ignores
// max_tokens does.
func endlessServer(roleOnly bool) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := `data: {"choices":[{"delta":{"content":"tok"}}]}` + "\n\n"
		if roleOnly {
			chunk = `data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\n"
		}
		fl := w.(http.Flusher)
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, strings.Repeat(chunk, 16)); err != nil {
				return
			}
			fl.Flush()
		}
	}))
}

// A server that streams content far past max_tokens fails the request as
// a bad stream as soon as it is past any count max_tokens allows, rather
// than growing the client's memory until the timeout.
func TestStreamPastMaxTokensFailsEarly(t *testing.T) {
	srv := endlessServer(false)
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Timeout = 3 * time.Second
	begin := time.Now()
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	r := out[0]
	if ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, "max_tokens 5") || !strings.Contains(r.Error, "74 content chunks") {
		t.Errorf("error %q, want a bad stream naming 74 content chunks and max_tokens 5", r.Error)
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("the request took %v: the stream was read until the timeout", took)
	}
}
