package sim

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A request refused on arrival during a step frees its client then, at
// its arrival, though the loop learns of it only once the step ends. A
// client freed by that step's completion must not pick up its next
// request first: the measured request that follows the refusal is issued
// earlier, and the window, like the rows' live window, opens at it.
func TestClosedLoopWindowOpensAtTheEarliestIssue(t *testing.T) {
	cfg := serialTestConfig(t)
	warm := req("w", 0, 10, 1) // one 20 ms prefill step from 1 ms
	warm.Warmup = true
	big := req("big", 0, 10_000, 1) // arrives at 2 ms, in w's step: refused
	big.Warmup = true
	reqs := []*traces.Request{warm, big, req("a", 0, 10, 3), req("b", 0, 10, 3)}
	sum, w := runClosedLoop(t, cfg, ClosedLoop{Clients: 2, IssueGap: time.Millisecond}, reqs)
	for _, r := range w.rows {
		if !r.Warmup && r.ScheduledSend < int64(sum.FirstArrival*1e9) {
			t.Errorf("%s issued at %d ns, before the window opens at %v s", r.ID, r.ScheduledSend, sum.FirstArrival)
		}
	}
	first, last, ok := liveWindow(w.rows).Bounds()
	if !ok || sum.FirstArrival != float64(first)/1e9 || sum.Makespan != float64(last-first)/1e9 {
		t.Errorf("window from %v s, %v s long; the rows' live window is [%d, %d] ns (ok %v)",
			sum.FirstArrival, sum.Makespan, first, last, ok)
	}
}
