package replay

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// heldRow is a measured row sent lag after it was due, of which capWait
// the concurrency cap held it back.
func heldRow(id string, warmup bool, lag time.Duration) *traces.Request {
	r := &traces.Request{}
	r.Reset()
	r.ID, r.Warmup, r.PromptTokens, r.OutputTokens = id, warmup, 32, 4
	r.ScheduledSend, r.ActualSend = 0, int64(lag)
	r.HTTPStatus, r.Error = 500, KindServer+": 500"
	return r
}

// A send due while the cap held earlier rows back goes late behind them,
// whether it then waits for a slot itself or finds one free (after a
// warm-up send that waited, say): both are late by the cap, not by the
// client. The count of held-back sends takes both, so that the summary,
// which judges the lag less those waits, says the cap delayed them rather
// than print a lag of tens of ms as "ok" unexplained.
func TestCapWaitsCountEverySendTheCapHeldBack(t *testing.T) {
	c := newCollector(traces.SLO{})
	c.addWaited(heldRow("warm", true, 30*time.Millisecond), 30*time.Millisecond)
	// Behind the warm-up send that waited, it found a slot free.
	c.addWaited(heldRow("behind", false, 30*time.Millisecond+50*time.Microsecond), 30*time.Millisecond)
	s := c.summary()
	if s.CapWaits != 1 {
		t.Errorf("cap waits %d, want 1: the measured send the cap held back (the warm-up one is not counted)", s.CapWaits)
	}
	if s.LagFlagged || s.Lag.P99 < 30*time.Millisecond {
		t.Fatalf("lag p99 %v, flagged %v: want the wait in the lag, and no flag", s.Lag.P99, s.LagFlagged)
	}
	var b bytes.Buffer
	s.Print(&b)
	if !strings.Contains(b.String(), "1 send was held back by the concurrency cap") {
		t.Errorf("the summary does not say the cap delayed the send:\n%s", b.String())
	}
}
