package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A failure sent upstream records when it was seen, as the load
// generator's client does: not a latency, but how long the request may
// have run in the engine.
func TestFailureRecordsWhenItWasSeen(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(30 * time.Millisecond)
		io.WriteString(w, "event: error\ndata: {\"message\":\"engine died\"}\n\n")
	}))
	t.Cleanup(up.Close)
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"))
	_, rows := r.finish(t)
	if len(rows) != 1 || rows[0].Error == "" || rows[0].FirstToken != traces.Missing {
		t.Fatalf("rows %+v: want one failure without latency times", rows)
	}
	if f := rows[0]; f.FailTime == traces.Missing || f.FailTime-f.ActualSend < int64(30*time.Millisecond) {
		t.Errorf("failed_ns %d, sent at %d: want the failure's time, at least 30 ms after the send", f.FailTime, f.ActualSend)
	}
}
