package sweep

import (
	"context"
	"strings"
	"testing"
)

// A fixed batch that waits up to max_wait_ms to fill serves a slow trickle
// later than a brisk stream: 4 to a batch, waiting up to 2 s, arrivals
// 1/s apart at scale 1, the P99 TTFT is about 2 s at scale 2 and 0.76 s
// at scale 4. With a 1 s limit the search, starting at 8, finds the
// capacity at max_scale; the load curve reaches down to scale 2, where
// the SLO fails. The row must say so: a planner would otherwise read the
// capacity as a guarantee for every lighter load.
func TestSLOFailingBelowTheCapacityIsNoted(t *testing.T) {
	ev := handEvaluator(t, `[batch]
strategy = "fixed"
batch_size = 4
max_wait_ms = 2000
[slo]
ttft_p99_ms = 1000
[search]
start_scale = 8
max_scale = 64
curve_octaves_below = 5
`, 0.01, handTrace(100, 1))
	row := configRow(ev.cfg)
	if err := ev.evaluate(context.Background(), &row); err != nil {
		t.Fatal(err)
	}
	if row.Outcome != OutcomeOK || row.Scale != 64 {
		t.Fatalf("outcome %s at scale %g, note %q; want ok at max_scale 64", row.Outcome, row.Scale, row.Note)
	}
	if !strings.Contains(row.Note, "the SLO fails at scale 2 below the capacity") {
		t.Errorf("note %q; want it to name scale 2, where the SLO fails below the capacity", row.Note)
	}
}
