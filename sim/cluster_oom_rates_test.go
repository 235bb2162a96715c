package sim

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// TestClusterOOMWithoutACompletionHasNoRates: a cluster that an OOM stops
// while a replica works on a measured request is held to the OOM, a
// window with no completion in it. Its rates are null in JSON, as a live
// run with no success has none, not a measured 0 req/s; the window's
// device-seconds, utilisation and KV mean stand. Split on the prompt at
// 150 tokens: the short pool (fixed batches of 2, 20 blocks of 16) holds
// A until C arrives at 100 ms and {A, C} needs 21 blocks: OOM. The long
// pool is still decoding the measured L then.
func TestClusterOOMWithoutACompletionHasNoRates(t *testing.T) {
	reqs := []*traces.Request{req("A", 0, 10, 2), req("L", 0, 200, 500), req("C", 100, 100, 210)}
	cc := ClusterConfig{Threshold: 150, PromptOnly: true, Pools: []PoolConfig{
		{Name: "short", Replicas: 1, Router: RoundRobin, Replica: testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 5000}, 20, false)},
		{Name: "long", Replicas: 1, Router: RoundRobin, Replica: testConfig(policy(t, Continuous), 100, false)},
	}}
	sum, err := RunCluster(t.Context(), cc, newSliceReader(reqs), &memWriter{})
	var oom *OOMError
	if !errors.As(err, &oom) {
		t.Fatalf("err = %v, want an OOM", err)
	}
	if sum.Completed != 0 || math.Abs(sum.Makespan-0.1) > 1e-12 || math.Abs(sum.DeviceSeconds-0.2) > 1e-12 {
		t.Fatalf("%d completed, makespan %v s, device-seconds %v: want none completed over a window of 0.1 s held to the OOM, 0.2 device-seconds",
			sum.Completed, sum.Makespan, sum.DeviceSeconds)
	}
	for _, s := range []Summary{sum.Summary, sum.Pools[1].Summary, sum.Pools[1].Replicas[0]} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"ReqPerSec":null`, `"InputTokPerSec":null`, `"OutputTokPerSec":null`, `"DeviceSeconds":0.`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("JSON %s: want it to hold %s", b, want)
			}
		}
		for _, unwanted := range []string{`"Utilization":null`, `"MeanUsed":null`, `"MeanUtil":null`} {
			if strings.Contains(string(b), unwanted) {
				t.Errorf("JSON %s: want no %s: the window measured it", b, unwanted)
			}
		}
	}
}
