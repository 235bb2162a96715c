package sim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A run that a static OOM stops before any measured request completes
// has no window, as a live run in which nothing succeeded has none: the
// warm-up batch's engine time and KV count nowhere, and the rates and the
// KV mean are null in JSON rather than a measured zero. It holds for a
// closed loop as for Run and RunCluster.
func TestOOMBeforeACompletionHasNoWindow(t *testing.T) {
	trace := func() traces.Reader {
		rows := oomTrace()
		rows[0].Warmup, rows[1].Warmup = true, true // A and B run, then C and D do not fit
		return newSliceReader(rows)
	}
	cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 100}, 10, false)
	runs := map[string]func() (*Summary, error){
		"closed": func() (*Summary, error) {
			return RunClosedLoop(t.Context(), cfg, ClosedLoop{Clients: 2}, trace(), &memWriter{})
		},
		"run": func() (*Summary, error) { return Run(t.Context(), cfg, trace(), &memWriter{}) },
		"cluster": func() (*Summary, error) {
			cs, err := RunCluster(t.Context(), ClusterConfig{Pools: []PoolConfig{{Name: "p", Replicas: 1, Router: RoundRobin, Replica: cfg}}},
				trace(), &memWriter{})
			return &cs.Summary, err
		},
	}
	for name, run := range runs {
		sum, err := run()
		if sum == nil || sum.OOM == nil {
			t.Errorf("%s: err = %v: want an OOM", name, err)
			continue
		}
		if sum.Steps == 0 || sum.Completed != 0 || sum.Requests != 4 {
			t.Errorf("%s: %d steps, %d completed of %d requests: want the warm-up batch run and none of the 4 measured served",
				name, sum.Steps, sum.Completed, sum.Requests)
		}
		if sum.Makespan != 0 || sum.BusySeconds != 0 || sum.ReqPerSec != 0 || sum.KV.MeanUsed != 0 {
			t.Errorf("%s: makespan %v, busy %v, %v req/s, KV mean %v: want no window",
				name, sum.Makespan, sum.BusySeconds, sum.ReqPerSec, sum.KV.MeanUsed)
		}
		b, jerr := json.Marshal(sum)
		if jerr != nil {
			t.Fatal(jerr)
		}
		for _, want := range []string{`"ReqPerSec":null`, `"Utilization":null`, `"MeanUsed":null`, `"MeanUtil":null`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: JSON %s: want it to hold %s", name, b, want)
			}
		}
	}
}
