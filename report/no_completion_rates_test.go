package report

import (
	"testing"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
)

// A simulated cluster held to an OOM has a window in which nothing
// completed: summary.json writes its rates null, as a live run with no
// success has none. The report reads them as not measured, not as a
// measured 0 req/s, though the window's device count stands.
func TestResultRunWithoutACompletionHasNoRates(t *testing.T) {
	s := &sim.Summary{Policy: "continuous", Requests: 3, Makespan: 0.1, DeviceSeconds: 0.2,
		KV: sim.KVStats{TotalBlocks: 100}}
	m := resultRun(&plan.Result{Name: "held", Summary: s, Outcome: "oom"}).Metrics
	if known(m.ReqPerSec) || known(m.OutTokPerSec) {
		t.Errorf("throughput %v req/s, %v tok/s: want not measured", m.ReqPerSec, m.OutTokPerSec)
	}
	if m.Devices != 2 || m.Failed != 3 {
		t.Errorf("devices %d, failed %d: want 2 and 3", m.Devices, m.Failed)
	}
}
