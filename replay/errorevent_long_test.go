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
