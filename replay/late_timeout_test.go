package replay

import (
	"bytes"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A row the run reaches after its due time (a run behind schedule) goes
// at once, and its timeout runs from that send, as Config.Timeout says:
// not from when it was due, which would leave it less time, or none.
func TestLateRowTimeoutRunsFromItsSend(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 100 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Timeout = time.Second
	c := mustClient(t, &cfg)
	defer c.close()
	r := rows(1, 0, 30, 2)[0]
	start := time.Now()
	due := start.Add(-2 * time.Second)
	c.send(t.Context(), start, 0, r, c.prepare(t.Context(), due, c.body(bytes.Repeat([]byte("a"), 30), 2)))
	if r.Error != "" || !r.Succeeded() {
		t.Errorf("a row sent 2 s after it was due, answered in 100 ms with a 1 s timeout: error %q", r.Error)
	}
}
