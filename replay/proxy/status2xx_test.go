package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A completion is a 200, as record counts one: another 2xx (a 204 with no
// body, a 201 or 206 with a stream) answers no completion the trace can
// use, and is recorded as failed with its status, not as a success whose
// tokens are max_tokens and whose chunks are missing.
func TestOther2xxIsNotASuccess(t *testing.T) {
	for _, code := range []int{201, 204, 206} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if code == 204 {
					w.WriteHeader(code)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(code)
				io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
			}))
			t.Cleanup(up.Close)
			r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
			if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", true, false, "hi")); status != code {
				t.Fatalf("status %d passed through as %d", code, status)
			}
			_, rows := r.finish(t)
			if len(rows) != 1 {
				t.Fatalf("%d rows, want 1", len(rows))
			}
			if row := rows[0]; row.HTTPStatus != int32(code) || !strings.HasPrefix(row.Error, fmt.Sprintf("HTTP %d", code)) {
				t.Fatalf("status %d, error %q, output tokens %d, chunks %d: want failed with HTTP %d",
					row.HTTPStatus, row.Error, row.OutputTokens, row.Chunks, code)
			}
		})
	}
}
