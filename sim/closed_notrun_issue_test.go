package sim

import (
	"testing"
	"time"
)

// A closed-loop request that a static OOM stopped before it ran keeps
// its issue time in ScheduledSend, as a served row does; those never
// issued carry the time the run stopped in both.
func TestClosedLoopNotRunKeepsTheIssue(t *testing.T) {
	cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 100}, 10, false)
	w := &memWriter{}
	_, err := RunClosedLoop(t.Context(), cfg, ClosedLoop{Clients: 2, IssueGap: time.Millisecond}, newSliceReader(oomTrace()), w)
	checkOOMRows(t, w, err, 2)
	// A and B are issued at 0 and reach the engine at 1 and 2 ms; their
	// batch prefills 20 tokens (30 ms, to 32 ms) and decodes one token
	// (12 ms, to 44 ms). C and D are issued at 44 ms and reach the engine
	// at 45 and 46 ms, where their batch does not fit: the run stops.
	const ms = int64(time.Millisecond)
	for _, c := range []struct {
		id             string
		issue, arrival int64
	}{{"A", 0, 1 * ms}, {"B", 0, 2 * ms}, {"C", 44 * ms, 45 * ms}, {"D", 44 * ms, 46 * ms}, {"E", 46 * ms, 46 * ms}, {"F", 46 * ms, 46 * ms}} {
		r := w.byID[c.id]
		if r.ScheduledSend != c.issue || r.Arrival != c.arrival {
			t.Errorf("%s (%s): scheduled %d, arrival %d; want %d, %d", c.id, r.Error, r.ScheduledSend, r.Arrival, c.issue, c.arrival)
		}
	}
}
