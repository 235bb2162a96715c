package replay

import (
	"strings"
	"testing"
)

// A long message in an error, as an event or as an object in a data
// event, is cut as the raw data was: a server's error text echoing a
// request does not fill the trace's error column.
func TestLongStreamErrorMessageIsClipped(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, ev := range []string{"event: error\ndata: ", "data: "} {
		srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" + ev + `{"error":{"message":"engine dead: ` + long + `"}}` + "\n\n")
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		if r := out[0]; ErrorKind(r.Error) != KindStreamError || !strings.Contains(r.Error, "engine dead") || len(r.Error) > 300 {
			t.Errorf("%q: error of %d bytes %.80q…, want %s naming the message, cut to about 200 bytes", ev, len(r.Error), r.Error, KindStreamError)
		}
	}
}

// An error's type is the server's text too: a long one, or one across
// lines, is cut and kept on one line as the message is.
func TestLongStreamErrorTypeIsClipped(t *testing.T) {
	long := strings.Repeat("y", 5000)
	srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" + `data: {"error":{"message":"engine dead","type":"internal\n` + long + `"}}` + "\n\n")
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if r := out[0]; ErrorKind(r.Error) != KindStreamError || !strings.Contains(r.Error, "(internal y") || strings.Contains(r.Error, "\n") || len(r.Error) > 300 {
		t.Errorf("error of %d bytes %.80q…, want %s naming the type on one line, cut to about 200 bytes", len(r.Error), r.Error, KindStreamError)
	}
}
