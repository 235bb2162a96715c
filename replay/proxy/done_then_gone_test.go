package proxy

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A client that stops reading at data: [DONE] and hangs up, as record's
// own client and many others do, got the whole completion: the row is a
// success, even when the upstream's end of the response comes later.
func TestClientGoneAfterDoneIsASuccess(t *testing.T) {
	const stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi there\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":2}}\n\n" +
		"data: [DONE]\n\n"
	closed := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
		w.(http.Flusher).Flush()
		// The response's end (the last chunk) comes after the client left.
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
		close(closed)
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	resp, err := http.Post(r.srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(chatBody("m", true, true, "hi")))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before [DONE]: %v", err)
		}
		if strings.TrimSpace(line) == "data: [DONE]" {
			break
		}
	}
	resp.Body.Close() // not read to its end: the connection is closed
	<-closed
	_, rows := r.finish(t)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	row := rows[0]
	if !row.Succeeded() || row.UsageOutput != 2 || row.FirstToken < 0 {
		t.Fatalf("error %q, usage output %d, first token %d: want a success with the usage's 2 tokens", row.Error, row.UsageOutput, row.FirstToken)
	}
}
