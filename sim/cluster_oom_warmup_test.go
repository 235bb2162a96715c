package sim

import (
	"errors"
	"math"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestClusterOOMWindowLeavesWarmupWorkOut: a replica busy with warm-up
// rows alone when an OOM ends the run does not hold the window open to
// the OOM, as warm-up work after the last completion does not without
// one. Split on the prompt at 150 tokens: the short pool (fixed batches
// of 2, 20 blocks of 16, the test timer) runs R0 and R1 from 0 to 42 ms
// (prefill of 20 tokens: 30 ms, one decode step: 12 ms), then A waits
// for a partner until C arrives at 1 s and {A, C} needs 21 blocks: OOM.
// The long pool decodes the warm-up row W from 0 until well past 1 s.
// The window is 0 to 42 ms, R1's completion, on both replicas.
func TestClusterOOMWindowLeavesWarmupWorkOut(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		w := req("W", 0, 200, 500)
		w.Warmup = true
		reqs := []*traces.Request{req("R0", 0, 10, 2), req("R1", 0, 10, 2), w, req("A", 100, 10, 2), req("C", 1000, 100, 210)}
		cc := ClusterConfig{Threshold: 150, PromptOnly: true, Pools: []PoolConfig{
			{Name: "short", Replicas: 1, Router: RoundRobin, Replica: testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 5000}, 20, noSkip)},
			{Name: "long", Replicas: 1, Router: RoundRobin, Replica: testConfig(policy(t, Continuous), 100, noSkip)},
		}}
		sum, err := RunCluster(t.Context(), cc, newSliceReader(reqs), &memWriter{})
		var oom *OOMError
		if !errors.As(err, &oom) || oom.Report.Batch != 2 {
			t.Fatalf("err = %v, want an OOM of batch 2", err)
		}
		if math.Abs(sum.Makespan-0.042) > 1e-12 || math.Abs(sum.DeviceSeconds-2*0.042) > 1e-12 {
			t.Errorf("makespan %v s, device-seconds %v; want 0.042 s, 0.084: the window ends at R1's completion", sum.Makespan, sum.DeviceSeconds)
		}
		if long := sum.Pools[1].Replicas[0]; math.Abs(long.BusySeconds-0.042) > 1e-9 {
			t.Errorf("long replica busy %v s, want all of the 0.042 s window", long.BusySeconds)
		}
	})
}
