package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A 200 whose body is no event stream (a server that ignored stream: true,
// or a gateway's JSON error sent as 200) is named for what came, with the
// body's message, not reported as a stream that merely lacked [DONE].
func TestJSONBodyIsNamedNotANoDone(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"error":{"message":"model overloaded","type":"server_error"}}`, "model overloaded"},
		{`{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, "chat.completion"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(c.body))
		}))
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		msg := out[0].Error
		if !strings.Contains(msg, "application/json") || !strings.Contains(msg, c.want) {
			t.Errorf("body %s: error %q, want it to name the Content-Type application/json and %q", c.body, msg, c.want)
		}
	}
}
