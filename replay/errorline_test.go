package replay

import (
	"strings"
	"testing"
)

// llama.cpp's server sends an error mid-stream as an "error:" line (a
// field the standard does not know), then data: [DONE]. It is the
// server's error and its message, not a stream that "carried no usage".
func TestLlamaCppErrorLineIsAStreamError(t *testing.T) {
	srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" +
		`error: {"code":500,"message":"slot failed to decode","type":"server_error"}` + "\n\ndata: [DONE]\n\n")
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if r := out[0]; ErrorKind(r.Error) != KindStreamError || !strings.Contains(r.Error, "slot failed to decode") {
		t.Errorf("error %q, want %s with the server's message", r.Error, KindStreamError)
	}
}
