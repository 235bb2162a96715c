package telemetry

import (
	"testing"
	"time"
)

// A tick carries the time it came due: the polls missed before it are
// those due earlier, never the tick being taken, however late the loop
// gets to it, and a due time set a little after the ticker's own grid
// does not lose one.
func TestCountMissedCountsOnlyThePollsBeforeTheTick(t *testing.T) {
	const every = 10 * time.Millisecond
	origin := time.Now()
	s := &Scraper{cfg: ScrapeConfig{Interval: every, Origin: origin}}
	due := origin.Add(every + 50*time.Microsecond) // set just after NewTicker
	tick := origin.Add(3 * every)                  // polls due at 1 and 2 intervals were not made
	next := s.countMissed(tick, due)
	if s.sum.Missed != 2 {
		t.Fatalf("tick at %v with %v due: %d missed, want 2", tick.Sub(origin), due.Sub(origin), s.sum.Missed)
	}
	for _, at := range s.missedAt {
		if at >= int64(tick.Sub(origin)) {
			t.Errorf("missed poll stamped at %v, not before the tick taken at %v", time.Duration(at), tick.Sub(origin))
		}
	}
	if want := tick.Add(every); !next.Equal(want) {
		t.Errorf("next due %v, want %v", next.Sub(origin), want.Sub(origin))
	}
	if s.countMissed(next.Add(-50*time.Microsecond), next); s.sum.Missed != 2 {
		t.Errorf("a tick on time counted %d missed in all, want still 2", s.sum.Missed)
	}
}
