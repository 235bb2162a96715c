package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An error object in the stream that carries no message is still shown:
// a bare "stream_error: " says nothing of what the server reported.
func TestStreamErrorWithoutMessageIsShown(t *testing.T) {
	for _, c := range []struct{ ev, want string }{
		{`{"error":{"code":503,"type":"overloaded"}}`, "503"},
		{`{"error":{}}`, `{"error":{}}`},
		{`{"error":{"message":"","type":"server_error","code":502}}`, "502"},
		{`{"object":"error","message":"","code":507}`, "507"},
		{`{"error":"","code":508}`, "508"}, // TGI's shape: the error a string
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"))
			w.Write([]byte("data: " + c.ev + "\n\n"))
		}))
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		if msg := out[0].Error; ErrorKind(msg) != KindStreamError || !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q, want a %s naming %s", c.ev, msg, KindStreamError, c.want)
		}
	}
}
