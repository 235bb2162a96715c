package replay

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzErrorMessage: the message pulled out of any error body is one line
// of valid UTF-8, the same each time, no longer than the clip where the
// body is not JSON, and the error shapes servers send (OpenAI's, TGI's,
// a bare message, FastAPI's detail) all give the same message for one
// text. Seeds: testdata/fuzz/FuzzErrorMessage.
func FuzzErrorMessage(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := errorMessage(body)
		if errorMessage(body) != msg || !utf8.ValidString(msg) || msg != strings.Join(strings.Fields(msg), " ") {
			t.Fatalf("errorMessage(%q) = %q: want one line of valid UTF-8, the same each time", body, msg)
		}
		if !json.Valid(body) && len(msg) > 200+len("…") {
			t.Fatalf("errorMessage(%q) = %d bytes, past the clip", body, len(msg))
		}
		text := strings.ToValidUTF8(string(body), "\uFFFD")
		quoted, _ := json.Marshal(text)
		want := strings.Join(strings.Fields(text), " ")
		for _, shape := range []string{`{"error":{"message":%s,"code":400}}`, `{"error":%s,"error_type":"x"}`, `{"message":%s}`, `{"detail":%s}`} {
			wrapped := strings.Replace(shape, "%s", string(quoted), 1)
			if got := errorMessage([]byte(wrapped)); want != "" && got != want {
				t.Fatalf("errorMessage(%s) = %q, want %q", wrapped, got, want)
			}
		}
	})
}
