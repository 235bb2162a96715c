package replay

import (
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A send held back by the concurrency cap is late by the wait, and its lag
// says so; but the client kept its schedule, so the run is not flagged.
func TestCapWaitDoesNotFlagTheClient(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 25 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Concurrency = 1
	s, _ := runRows(t, cfg, rows(4, 0, 30, 2)) // all due at once: three wait for the one slot
	if s.CapWaits != 3 || s.Lag.Max < 20*time.Millisecond {
		t.Fatalf("cap waits %d, lag max %v; want 3 and the waits in the lag", s.CapWaits, s.Lag.Max)
	}
	// The client's own lag is µs; a loaded test machine may still push
	// it past LagLimit, never to the 25 ms of one wait.
	if s.ClientLag.N != 4 || s.ClientLag.P99 >= 10*time.Millisecond {
		t.Errorf("client lag %+v: the waits for a slot are in it", s.ClientLag)
	}
	if s.LagFlagged != (s.ClientLag.P99 > LagLimit) {
		t.Errorf("run flagged %v for schedule lag p99 %v, client lag p99 %v: all but the client's own is waits for a concurrency slot",
			s.LagFlagged, s.Lag.P99, s.ClientLag.P99)
	}
}
