package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/sse"
)

// What a stream carries after data: [DONE] no client reads: neither more
// output nor an error event changes the row.
func TestEventsAfterDoneAreIgnored(t *testing.T) {
	const stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi there\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":2}}\n\n" +
		"data: [DONE]\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"more text after the end\"}}]}\n\n" +
		"event: error\ndata: {\"error\":{\"message\":\"late failure\"}}\n\n"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	if status, body := r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi")); status != 200 || string(body) != stream {
		t.Fatalf("status %d, body %q: want 200 and the stream unchanged", status, body)
	}
	_, rows := r.finish(t)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	if row := rows[0]; !row.Succeeded() || row.Chunks != 1 || row.UsageOutput != 2 {
		t.Fatalf("error %q, chunks %d, usage output %d: want a success of 1 chunk and 2 tokens", row.Error, row.Chunks, row.UsageOutput)
	}
}

// A line past the parser's bound after data: [DONE] is not read either: the
// row, complete at [DONE], does not count among those whose stream failed to
// parse.
func TestOverlongLineAfterDoneIsNotUnparsed(t *testing.T) {
	const head = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi there\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":2}}\n\n" +
		"data: [DONE]\n\n"
	tail := "data: " + strings.Repeat("x", sse.DefaultMaxLine+1) + "\n\n"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, head)
		w.(http.Flusher).Flush()
		io.WriteString(w, tail)
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	if status, body := r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi")); status != 200 || len(body) != len(head)+len(tail) {
		t.Fatalf("status %d, %d bytes: want 200 and the stream's %d", status, len(body), len(head)+len(tail))
	}
	_, rows := r.finish(t) // the row is counted by then
	if st := r.p.Stats(); st.Unparsed != 0 {
		t.Errorf("Stats.Unparsed = %d, want 0: the stream was complete at data: [DONE]", st.Unparsed)
	}
	if len(rows) != 1 || !rows[0].Succeeded() || rows[0].Chunks != 1 {
		t.Fatalf("rows %+v: want one success of 1 chunk", rows)
	}
}
