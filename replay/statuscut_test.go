package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// An error body the timeout cut short says so: `{"error":` alone reads as
// all the server said.
func TestStatusBodyCutByTimeout(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: always(replaytest.StatusHang)})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Timeout = 150 * time.Millisecond
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	msg := out[0].Error
	if ErrorKind(msg) != KindServer || out[0].HTTPStatus != 500 || !strings.Contains(msg, `{"error":`) ||
		!strings.Contains(msg, "150ms timeout") {
		t.Errorf("status %d, error %q; want a %s that says the 150ms timeout cut the body", out[0].HTTPStatus, msg, KindServer)
	}
}
