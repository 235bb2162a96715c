package calibrate

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// Summarize rates a run over the window record, trace stats and report
// use: a row without a scheduled send (a proxy capture's) opens it at its
// arrival, as traces.Window does.
func TestSummarizeRatesOverTheTraceWindow(t *testing.T) {
	a := row("a", 100, 5, 10, 20)
	b := row("b", 100, 0, 10, 20, 30, 40)
	b.ScheduledSend, b.Arrival = traces.Missing, 0
	s := Summarize([]*traces.Request{a, b})
	if s.Wall != 40*time.Millisecond || s.RequestsPerSec != 50 || s.OutputTokensPerSec != 150 {
		t.Errorf("wall %v, %g req/s, %g output tok/s; want 40ms (arrival 0 to the last token), 50 req/s, 150 output tok/s",
			s.Wall, s.RequestsPerSec, s.OutputTokensPerSec)
	}
}
