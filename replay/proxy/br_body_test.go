package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

func brotlied(b []byte) []byte {
	var z bytes.Buffer
	zw := brotli.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// A whole response compressed with br is read as a gzip one is: a
// success keeps the server's usage, a failure the server's message.
func TestBrotliResponseIsParsed(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
	}{
		{"success", 200, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`},
		{"error", 400, `{"error":{"message":"max_tokens is too large","code":400}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Encoding", "br")
				w.WriteHeader(c.status)
				w.Write(brotlied([]byte(c.body)))
			}))
			t.Cleanup(up.Close)
			r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
			if status, _ := r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hi"), "Accept-Encoding", "br"); status != c.status {
				t.Fatalf("status %d, want %d", status, c.status)
			}
			_, rows := r.finish(t)
			if len(rows) != 1 {
				t.Fatalf("%d rows, want 1", len(rows))
			}
			row := rows[0]
			if c.status >= 400 {
				if !strings.Contains(row.Error, "max_tokens is too large") {
					t.Errorf("error %q: want the server's message", row.Error)
				}
				return
			}
			if row.UsagePrompt != 3 || row.UsageOutput != 1 {
				t.Errorf("usage %d/%d, want the server's 3/1", row.UsagePrompt, row.UsageOutput)
			}
			if st := r.p.Stats(); st.Unparsed != 0 {
				t.Errorf("stats %+v: the br body counted as unparsed", st)
			}
		})
	}
}
