package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
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
