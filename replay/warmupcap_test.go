package replay

import (
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// Warm-up sends that wait for a concurrency slot are left out of the cap
// waits, as their lag is left out of the schedule lag.
func TestWarmupCapWaitsNotCounted(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: 30 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Concurrency = 1
	in := rows(4, 0, 30, 2) // all due at once: three wait for the one slot
	for _, r := range in[:3] {
		r.Warmup = true
	}
	s, _ := runRows(t, cfg, in)
	if s.Warmup != 3 || s.Sent != 1 || s.Lag.N != 1 {
		t.Fatalf("warm-up %d, sent %d, lags %d; want 3, 1, 1", s.Warmup, s.Sent, s.Lag.N)
	}
	if s.CapWaits != 1 {
		t.Errorf("cap waits %d, want 1: the one measured request waited, the warm-up sends are not counted", s.CapWaits)
	}
}
