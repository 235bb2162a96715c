package sim

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A live closed loop measures TTFT and E2E from when a client picks its
// next request up (its ScheduledSend), the instant its previous one
// ended; the request reaches the engine IssueGap later. The simulated
// latencies start at the same instant, not at the engine.
func TestClosedLoopLatenciesStartAtTheIssue(t *testing.T) {
	cfg := serialTestConfig(t)
	reqs := []*traces.Request{req("a", 0, 10, 3), req("b", 0, 10, 3)}
	sum, w := runClosedLoop(t, cfg, ClosedLoop{Clients: 1, IssueGap: time.Millisecond}, reqs)
	// 42 ms a request (TestClosedLoopOneClientHandComputed): a is issued
	// at 0 and reaches the engine at 1 ms, first token 21 ms, last 43 ms;
	// b is issued at 43 ms, reaches it at 44 ms, tokens at 64 and 86 ms.
	for _, c := range []struct {
		id                   string
		issue, arrive, first int64
	}{{"a", 0, 1e6, 21e6}, {"b", 43e6, 44e6, 64e6}} {
		r := w.byID[c.id]
		if r.ScheduledSend != c.issue || r.Arrival != c.arrive || r.FirstToken != c.first {
			t.Errorf("%s: scheduled %d arrival %d first %d, want %d, %d, %d", c.id, r.ScheduledSend, r.Arrival, r.FirstToken, c.issue, c.arrive, c.first)
		}
		if ttft, _ := r.TTFT(); ttft != 21e6 {
			t.Errorf("%s: row TTFT %d ns, want 21 ms from the issue", c.id, ttft)
		}
	}
	if sum.TTFT.Mean != 0.021 || sum.E2E.Mean != 0.043 || sum.Queue.Mean != 0.001 {
		t.Errorf("TTFT mean %v E2E mean %v queue mean %v: want 0.021, 0.043, 0.001 (from the issue)", sum.TTFT.Mean, sum.E2E.Mean, sum.Queue.Mean)
	}
}
