package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A row held back by the concurrency cap goes late, whether it waited for
// a slot itself or only behind rows that waited and then found one free:
// either way its timeout runs from when it goes. Here 8 slots serve 24
// rows due at once, each taking 400 ms, with a 700 ms timeout: the second
// and third eights go at 400 and 800 ms and must not time out.
func TestCapHeldRowTimeoutRunsFromItsSend(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 400 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Concurrency = 8
	cfg.Timeout = 700 * time.Millisecond
	_, out := runRows(t, cfg, rows(24, 0, 30, 2))
	var failed []string
	for _, r := range out {
		if r.Error != "" {
			failed = append(failed, r.ID+" (sent at "+time.Duration(r.ActualSend).String()+"): "+r.Error)
		}
	}
	if len(failed) > 0 {
		t.Errorf("%d of 24 rows failed, their timeout run from when they were due:\n%s", len(failed), strings.Join(failed, "\n"))
	}
}
