package sim

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A live closed loop's window (traces.Window) opens at the first
// scheduled send, the client's pick-up, where the latencies start too;
// the simulated one opens there, not one IssueGap later at the engine,
// so its rates and KV mean cover the span a live run's do.
func TestClosedLoopWindowOpensAtTheFirstIssue(t *testing.T) {
	cfg := serialTestConfig(t)
	reqs := []*traces.Request{req("a", 0, 10, 3), req("b", 0, 10, 3)}
	sum, w := runClosedLoop(t, cfg, ClosedLoop{Clients: 1, IssueGap: time.Millisecond}, reqs)
	live := liveWindow(w.rows)
	first, last, ok := live.Bounds()
	// a is issued at 0 and b's last token comes at 86 ms
	// (TestClosedLoopLatenciesStartAtTheIssue).
	if !ok || first != 0 || last != 86e6 {
		t.Fatalf("rows' window = [%d, %d] ns (ok %v), want [0, 86e6]", first, last, ok)
	}
	if sum.FirstArrival != 0 || sum.Makespan != 0.086 {
		t.Errorf("window from %v s, %v s long; want from 0, 0.086 s, as the rows' live window", sum.FirstArrival, sum.Makespan)
	}
	if want := live.PerSec(2); sum.ReqPerSec != want {
		t.Errorf("ReqPerSec = %v, want %v, the live window's", sum.ReqPerSec, want)
	}
}
