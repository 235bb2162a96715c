package sim

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestClusterOOMReplicaNotHeldByItsOwnBatch: a static batch that does not
// fit is not work in progress. Fixed batches of 2, 20 blocks of 16, the
// test timer: R0 and R1 run together from 0 (prefill of 20 tokens: 30 ms,
// one decode step: 12 ms) and finish at 42 ms; A (1 block) waits for a
// second request until C (310 tokens: 20 blocks) arrives at 1 s, and the
// batch {A, C} needs 21 blocks: OOM. Run measures 0 to 42 ms, the last
// completion, and so must a one-replica cluster: its replica admitted A
// before finding that C does not fit, but never ran a step of the batch,
// so it was not "still working" when the OOM ended the run.
func TestClusterOOMReplicaNotHeldByItsOwnBatch(t *testing.T) {
	reqs := []*traces.Request{req("R0", 0, 10, 2), req("R1", 0, 10, 2), req("A", 100, 10, 2), req("C", 1000, 100, 210)}
	for _, noSkip := range []bool{false, true} {
		cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 5000}, 20, noSkip)
		cfg.Power = func(u float64) float64 { return 100 + 500*u }
		want, _, err := run(t, cfg, reqs)
		var oom *OOMError
		if !errors.As(err, &oom) || oom.Report.Batch != 2 {
			t.Fatalf("Run: err = %v, want an OOM of batch 2", err)
		}
		if math.Abs(want.Makespan-0.042) > 1e-12 || math.Abs(want.BusySeconds-0.042) > 1e-12 {
			t.Fatalf("Run: makespan %v s, busy %v s; want 0.042 s each", want.Makespan, want.BusySeconds)
		}
		got, err := RunCluster(t.Context(), onePool(1, RoundRobin, cfg), newSliceReader(reqs), &memWriter{})
		if !errors.As(err, &oom) {
			t.Fatalf("RunCluster: err = %v, want an OOM", err)
		}
		if got.Makespan != want.Makespan || got.DeviceSeconds != want.DeviceSeconds || got.Utilization != want.Utilization {
			t.Errorf("noSkip=%v: cluster makespan %v s, device-seconds %v, utilisation %v; Run's %v s, %v, %v",
				noSkip, got.Makespan, got.DeviceSeconds, got.Utilization, want.Makespan, want.DeviceSeconds, want.Utilization)
		}
		w := *want
		w.KV.Series = nil
		rep := got.Pools[0].Replicas[0]
		rep.KV.Series = nil
		if !reflect.DeepEqual(rep, w) {
			t.Errorf("noSkip=%v: replica summary\n%+v\nwant Run's\n%+v", noSkip, rep, w)
		}
	}
}
