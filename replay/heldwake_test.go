package replay

import (
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A held turn is released at the previous turn's end, as a turn the loop
// reaches late is: its scheduled send and hold are measured from that
// end, not from when its goroutine got to run, and any delay after the
// end is schedule lag.
func TestSessionWaitHeldTurnScheduledAtPreviousEnd(t *testing.T) {
	const wake = 40 * time.Millisecond
	orig := heldWoke
	t.Cleanup(func() { heldWoke = orig })
	heldWoke = func() { time.Sleep(wake) }

	srv := replaytest.New(replaytest.Options{TTFT: 60 * time.Millisecond})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.SessionWait = true
	s, out := runRows(t, cfg, sessionRows())
	first, second := out[0], out[1]
	if second.ScheduledSend < first.LastToken || second.ScheduledSend-first.LastToken > int64(wake/2) {
		t.Errorf("turn 2 scheduled %v, turn 1 ended %v: want it scheduled at turn 1's end, not %v later when its goroutine ran",
			time.Duration(second.ScheduledSend), time.Duration(first.LastToken), wake)
	}
	if lag := second.ActualSend - second.ScheduledSend; lag < int64(wake) {
		t.Errorf("turn 2 scheduled %v, sent %v: the %v it waited to run after turn 1 ended is not lag",
			time.Duration(second.ScheduledSend), time.Duration(second.ActualSend), wake)
	}
	if hold, want := s.SessionHoldTotal, time.Duration(second.ScheduledSend)-10*time.Millisecond; hold != want {
		t.Errorf("hold %v, want %v: from its due time to turn 1's end", hold, want)
	}
}
