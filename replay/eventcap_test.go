package replay

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A server that streams data events without content and without end fails
// the request as a bad stream once past any count max_tokens allows,
// rather than holding it until the timeout.
func TestStreamOfEmptyDeltasFailsEarly(t *testing.T) {
	srv := endlessServer(emptyDeltaChunk)
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Timeout = 3 * time.Second
	begin := time.Now()
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	r := out[0]
	// 4 × 5 + 256 events allowed.
	if ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, "276 data events") || !strings.Contains(r.Error, "max_tokens 5") {
		t.Errorf("error %q, want a bad stream naming 276 data events and max_tokens 5", r.Error)
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("the request took %v: the stream was read until the timeout", took)
	}
}

// The cap counts data events only: a stream within it, padded with many
// SSE comment lines (keep-alives), still succeeds.
func TestCommentLinesAreNotCountedAsEvents(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		var b strings.Builder
		b.WriteString(strings.Repeat(": keep-alive\n\n", 1000))
		b.WriteString(`data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\n")
		for range 5 {
			b.WriteString(`data: {"choices":[{"delta":{"content":"tok"}}]}` + "\n\n")
			b.WriteString(strings.Repeat(": keep-alive\n\n", 100))
		}
		b.WriteString(`data: {"choices":[{"delta":{},"finish_reason":"length"}]}` + "\n\n")
		b.WriteString(`data: {"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":5,"total_tokens":45}}` + "\n\n")
		b.WriteString("data: [DONE]\n\n")
		fmt.Fprint(w, b.String())
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if out[0].Error != "" || out[0].UsageOutput != 5 {
		t.Errorf("error %q, usage output %d: want a clean request of 5 tokens", out[0].Error, out[0].UsageOutput)
	}
}
