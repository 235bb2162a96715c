package proxy

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A compressed stream is over at data: [DONE] as a plain one is: bytes
// the upstream sends after it do not move LastToken. Its events are
// decoded in a goroutine of their own, so the tap learns of [DONE] from
// the decoder once it is joined, not while it runs (run it with -race).
func TestLastByteStopsAtDoneEncoded(t *testing.T) {
	const head = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":0}}\n\n" +
		"data: [DONE]\n\n"
	const late = 500 * time.Millisecond
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, head)
		zw.Flush()
		w.(http.Flusher).Flush()
		time.Sleep(late)
		io.WriteString(zw, ": keep-alive\n\n")
		zw.Close()
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi")); status != 200 {
		t.Fatalf("status %d, want 200", status)
	}
	_, rows := r.finish(t)
	if len(rows) != 1 || !rows[0].Succeeded() {
		t.Fatalf("rows %+v: want one success", rows)
	}
	if row := rows[0]; time.Duration(row.LastToken-row.ActualSend) >= late/2 {
		t.Errorf("LastToken %v after the send: want it at data: [DONE], before the bytes %v later",
			time.Duration(row.LastToken-row.ActualSend), late)
	}
}
