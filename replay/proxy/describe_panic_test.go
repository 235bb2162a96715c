package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// panicHandler is a log handler that panics on one message: a fault in
// reading a request, before it is forwarded.
type panicHandler struct {
	slog.Handler
	on string
}

func (h panicHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.on {
		panic("reading the prompt broke")
	}
	return h.Handler.Handle(ctx, r)
}

func (h panicHandler) Enabled(context.Context, slog.Level) bool { return true }

// A panic while the request is read still ends its row, as a failure that
// never reached the upstream.
func TestPanicBeforeForwardingStillWritesTheRow(t *testing.T) {
	r := newRig(t, ".jsonl", func(c *Config) {
		c.Logger = slog.New(panicHandler{Handler: c.Logger.Handler(), on: "proxy: request body is not the JSON expected"})
	})
	resp, err := http.Post(r.srv.URL+"/v1/chat/completions", "application/json", strings.NewReader("not json"))
	if err == nil {
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
	if !broke.SourceFailed || !strings.Contains(broke.Error, "reading the prompt broke") || broke.PromptTokens != 0 {
		t.Errorf("row that panicked: source_failed %v, error %q, prompt tokens %d; want a source_failed failure naming the panic, 0 tokens",
			broke.SourceFailed, broke.Error, broke.PromptTokens)
	}
	if !sent.Succeeded() {
		t.Errorf("row after it: error %q, want a success", sent.Error)
	}
}
