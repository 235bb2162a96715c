package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// oomTrace: batch {A, B} fits in 10 blocks of 16; batch {C, D} (8 blocks
// each) does not, and the run stops when it forms at t = 1 s, with E read
// but not yet handed to the engine and F not read.
func oomTrace() []*traces.Request {
	return []*traces.Request{
		req("A", 0, 10, 2), req("B", 0, 10, 2),
		req("C", 1000, 100, 20), req("D", 1000, 100, 20),
		req("E", 2000, 10, 2), req("F", 3000, 10, 2),
	}
}

// checkOOMRows: a run stopped by a static OOM still writes one row per
// input request, in input order; the requests it did not serve say so and
// carry no measurements.
func checkOOMRows(t *testing.T, w *memWriter, err error, served int) {
	t.Helper()
	var oom *OOMError
	if !errors.As(err, &oom) {
		t.Fatalf("err = %v, want *OOMError", err)
	}
	inputOrder(t, w, []string{"A", "B", "C", "D", "E", "F"})
	for i, r := range w.rows {
		if i < served {
			if r.Error != "" || r.LastToken == traces.Missing {
				t.Errorf("%s: error %q, last token %d: want served", r.ID, r.Error, r.LastToken)
			}
			continue
		}
		if !strings.HasPrefix(r.Error, "not run: out of KV memory") || r.StartTime != traces.Missing || r.FirstToken != traces.Missing ||
			r.LastToken != traces.Missing || r.UsagePrompt != traces.Missing || r.Preemptions != traces.Missing || r.FinishReason != "" {
			t.Errorf("%s: %+v, want an unmeasured row marked not run", r.ID, *r)
		}
	}
}

func TestStaticOOMWritesEveryRow(t *testing.T) {
	cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 100}, 10, false)
	in := newSliceReader(oomTrace())
	w := &memWriter{}
	_, err := Run(t.Context(), cfg, in, w)
	checkOOMRows(t, w, err, 2)
	if in.i < len(in.reqs) {
		t.Errorf("Run stopped reading at request %d of %d", in.i, len(in.reqs))
	}

	cw := &memWriter{}
	_, err = RunCluster(t.Context(), ClusterConfig{Pools: []PoolConfig{{Name: "p", Replicas: 1, Router: RoundRobin, Replica: cfg}}}, newSliceReader(oomTrace()), cw)
	checkOOMRows(t, cw, err, 2)
	if string(cw.bytes()) != string(w.bytes()) {
		t.Errorf("one-replica cluster rows differ from Run's:\n%s\nvs\n%s", cw.bytes(), w.bytes())
	}

	lw := &memWriter{}
	_, err = RunClosedLoop(t.Context(), cfg, ClosedLoop{Clients: 2}, newSliceReader(oomTrace()), lw)
	checkOOMRows(t, lw, err, 2)
	for i := 1; i < len(lw.rows); i++ {
		if lw.rows[i].Arrival < lw.rows[i-1].Arrival {
			t.Errorf("closed loop: row %s arrives at %d, before row %s (%d)", lw.rows[i].ID, lw.rows[i].Arrival, lw.rows[i-1].ID, lw.rows[i-1].Arrival)
		}
	}
}

// The OOM report counts as queued the requests that reached a busy engine
// but not yet its scheduler (an admission delay), as well as those waiting
// in its queue.
func TestOOMQueuedCountsArrivingRequests(t *testing.T) {
	tm := testTimer
	tm.Admit = Admission{Delay: 0.05}
	cfg := DefaultConfig()
	cfg.Policy = PolicyConfig{Name: Fixed, BatchSize: 2}
	cfg.Step, cfg.TotalBlocks = tm, 10
	// A runs alone (0–64 ms); B and C reach the scheduler at 51 and 52 ms
	// and form a batch that does not fit when A ends; D, at 60 ms, reaches
	// the scheduler only at 110 ms.
	_, _, err := run(t, cfg, []*traces.Request{
		req("A", 0, 10, 5), req("B", 1, 100, 20), req("C", 2, 100, 20), req("D", 60, 10, 2),
	})
	var oom *OOMError
	if !errors.As(err, &oom) {
		t.Fatalf("err = %v, want *OOMError", err)
	}
	if r := oom.Report; r.BatchSize != 2 || r.Queued != 1 {
		t.Errorf("batch of %d with %d queued, want 2 with D queued", r.BatchSize, r.Queued)
	}
}

// A batch that does not fit never runs: the prefix-cache lookups of the
// members admitted before the one that does not fit are no figure of the
// run, which served only what finished before it.
func TestStaticOOMBatchLooksNothingUp(t *testing.T) {
	cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2}, 10, false)
	cfg.PrefixCaching = true
	// A (3 blocks) runs alone and leaves blocks 1 and 2 cached; B finds
	// them, then C (6 blocks) does not fit beside B (6 blocks).
	sum, _, err := run(t, cfg, []*traces.Request{
		req("A", 0, 32, 2, 1, 2),
		req("B", 1000, 64, 20, 1, 2, 3, 4), req("C", 1000, 64, 20, 5, 6, 7, 8),
	})
	var oom *OOMError
	if !errors.As(err, &oom) {
		t.Fatalf("err = %v, want *OOMError", err)
	}
	if sum.Completed != 1 || sum.PrefixLookups != 1 || sum.PrefixHits != 0 {
		t.Errorf("completed %d, prefix lookups %d, hits %d; want A's alone: 1, 1, 0", sum.Completed, sum.PrefixLookups, sum.PrefixHits)
	}
}
