package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A client that sends its headers and then stalls its body is answered
// 408 once BodyTimeout runs out, and its row is a failure that never
// reached the upstream: it does not hold the later rows in memory until
// shutdown.
func TestStalledRequestBodyTimesOut(t *testing.T) {
	r := newRig(t, ".jsonl", func(c *Config) { c.BodyTimeout = 200 * time.Millisecond })
	conn, err := net.Dial("tcp", strings.TrimPrefix(r.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 100 bytes announced, 10 sent.
	if _, err := conn.Write([]byte("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":")); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("stalled body answered %d, want 408", resp.StatusCode)
	}
	if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", false, true, "hi")); status != 200 {
		t.Fatalf("status %d", status)
	}
	_, rows := r.finish(t)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if stalled := rows[0]; !stalled.SourceFailed || !strings.Contains(stalled.Error, "not received within 200ms") {
		t.Errorf("stalled row: source_failed %v, error %q; want source_failed and the timeout named", stalled.SourceFailed, stalled.Error)
	}
	if !rows[1].Succeeded() {
		t.Errorf("row after it: error %q, want a success", rows[1].Error)
	}
}

// The bound is on the body only: a response that runs longer than
// BodyTimeout is not cut.
func TestBodyTimeoutDoesNotCutLongResponses(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(500 * time.Millisecond)
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream, c.BodyTimeout = up.URL, 100*time.Millisecond })
	if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", true, false, "hi")); status != 200 {
		t.Fatalf("status %d", status)
	}
	_, rows := r.finish(t)
	if len(rows) != 1 || !rows[0].Succeeded() {
		t.Fatalf("rows %d, first's error %q: want 1 success", len(rows), rows[0].Error)
	}
}
