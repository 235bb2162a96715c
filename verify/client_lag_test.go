package verify

import (
	"testing"
	"time"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/replay"
)

// A run whose sends waited for the concurrency cap has a schedule lag
// the flag does not judge: the report gives the lag the flag judges too.
func TestMeasuredReportsTheLagTheFlagJudges(t *testing.T) {
	s := &replay.Summary{
		Sent:      10,
		Lag:       replay.Latency{N: 10, P99: 3 * time.Second},
		ClientLag: replay.Latency{N: 10, P99: 2 * time.Millisecond},
		CapWaits:  4,
	}
	var rep Repeat
	rep.measured([]*replay.Summary{s}, &plan.Plan{})
	if rep.LagFlagged {
		t.Fatal("flagged a run whose client lag is within the limit")
	}
	if rep.LagP99 == nil || *rep.LagP99 != 3 {
		t.Errorf("schedule lag p99 = %v, want 3 s (the cap waits included)", rep.LagP99)
	}
	if rep.ClientLagP99 == nil || *rep.ClientLagP99 != 0.002 {
		t.Fatalf("client lag p99 = %v, want 0.002 s (the lag the flag judges)", rep.ClientLagP99)
	}

	worse := Repeat{Status: StatusOK, LagP99: sec(1), ClientLagP99: sec(0.5)}
	sum, _, _ := summarize([]Repeat{{Status: StatusOK, LagP99: rep.LagP99, ClientLagP99: rep.ClientLagP99}, worse})
	if sum.ClientLagP99 == nil || *sum.ClientLagP99 != 0.5 {
		t.Errorf("summed client lag p99 = %v, want the worst run's 0.5 s", sum.ClientLagP99)
	}
}
