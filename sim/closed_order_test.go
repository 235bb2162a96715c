package sim

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// Requests reach the engine in the order they were issued, so the rows
// (written in input order) keep arrival order, as a trace must: a client
// freed by a rejection while requests issued earlier are still on their
// way issues one that arrives after them, never before.
func TestClosedLoopRejectionKeepsArrivalOrder(t *testing.T) {
	reqs := []*traces.Request{
		req("r0", 0, 10, 5000), // never fits: rejected on arrival at 1 ms, freeing its client
		req("r1", 0, 10, 5),    // issued at 0, arrives at 2 ms
		req("r2", 0, 10, 5),    // issued at 0, arrives at 3 ms
		req("r3", 0, 10, 5),    // issued at 1 ms by r0's client
	}
	bothModes(t, func(t *testing.T, noSkip bool) {
		cfg := testConfig(policy(t, Continuous), 64, noSkip)
		_, w := runClosedLoop(t, cfg, ClosedLoop{Clients: 3, IssueGap: time.Millisecond}, reqs)
		for i := 1; i < len(w.rows); i++ {
			if w.rows[i].Arrival < w.rows[i-1].Arrival {
				t.Errorf("row %s arrives at %d ns, before row %s at %d ns", w.rows[i].ID, w.rows[i].Arrival, w.rows[i-1].ID, w.rows[i-1].Arrival)
			}
		}
		if a := w.byID["r3"].Arrival; a < 3*ms {
			t.Errorf("r3 reaches the engine at %d ns, before r2 issued earlier (3 ms)", a)
		}
	})
}
