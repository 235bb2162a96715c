package proxy

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A panic after the request reached the upstream ends its row as the
// proxy's own failure, not the client's or the upstream's, and not as a
// request never sent: the rows behind it are written.
func TestPanicAfterForwardingIsAnInternalError(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if strings.Contains(r.URL.RawQuery, "odd") {
			// Warned of once, as the response comes back: the fault.
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "x-odd")
			io.WriteString(w, "data: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"index":0,"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`)
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) {
		c.Upstream = up.URL
		c.Logger = slog.New(panicHandler{Handler: c.Logger.Handler(), on: "proxy: a stream's Content-Encoding is not decoded: such rows have no FirstToken or TokenTimes and estimated token counts (Stats.Unparsed)"})
	})
	resp, err := http.Post(r.srv.URL+"/v1/chat/completions?odd=1", "application/json", strings.NewReader(chatBody("m", true, false, "hi")))
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", false, true, "hi")); status != 200 {
		t.Fatalf("status %d", status)
	}
	_, rows := r.finish(t)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	broke, sent := rows[0], rows[1]
	if broke.Error != "proxy internal error: reading the prompt broke" {
		t.Errorf("row that panicked: error %q, want the proxy's internal error naming the panic", broke.Error)
	}
	if broke.SourceFailed || broke.ActualSend < 0 || broke.PromptTokens <= 0 {
		t.Errorf("row that panicked: source_failed %v, actual send %d, prompt tokens %d; want a request sent upstream, as described",
			broke.SourceFailed, broke.ActualSend, broke.PromptTokens)
	}
	if !sent.Succeeded() {
		t.Errorf("row after it: error %q, want a success", sent.Error)
	}
}
