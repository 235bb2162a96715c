package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// A server that echoes a wrong key in a long error message: the row's
// error is clipped, and no part of the key survives the cut.
func TestSecretCutByTheClipIsMasked(t *testing.T) {
	token := strings.TrimPrefix(secret, "Bearer ")
	for pad := 270; pad <= 300; pad += 3 { // the clip cuts the key at each of these
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			io.WriteString(w, `{"error":{"message":"`+strings.Repeat("x", pad)+key+`"}}`)
		}))
		r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
		r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hi"))
		_, rows := r.finish(t)
		up.Close()
		if len(rows) != 1 || rows[0].HTTPStatus != 401 {
			t.Fatalf("rows %+v", rows)
		}
		b, _ := os.ReadFile(r.out)
		if leak := token[:4]; strings.Contains(rows[0].Error, leak) || strings.Contains(string(b), leak) {
			t.Errorf("pad %d: the start of the key is in the trace: %q", pad, rows[0].Error)
		}
		if !strings.HasPrefix(rows[0].Error, "HTTP 401: xxx") || len(rows[0].Error) > 300+len("…") {
			t.Errorf("pad %d: error %q, want the message clipped to 300 bytes", pad, rows[0].Error)
		}
	}
}
