package replay

import (
	"strings"
	"testing"
)

// event: error shows the server's message, and says when its data was empty.
func TestErrorEventIsShown(t *testing.T) {
	for data, want := range map[string]string{
		`{"error":{"message":"engine dead","type":"internal"}}`: "engine dead",
		``: "empty",
	} {
		srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\nevent: error\ndata: " + data + "\n\n")
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		if r := out[0]; ErrorKind(r.Error) != KindStreamError || !strings.Contains(r.Error, want) {
			t.Errorf("event: error with data %q: error %q, want %s naming %q", data, r.Error, KindStreamError, want)
		}
	}
}
