package sim

import (
	"encoding/json"
	"strings"
	"testing"
)

// Rates over a window of no length (nothing arrived, or every request was
// refused on arrival) are no measurement: they are written as null, as
// the table prints "—", not as a throughput of 0. A pool's summary keeps
// its name and replicas around them.
func TestSummaryJSONRatesNullWithoutAWindow(t *testing.T) {
	b, err := json.Marshal(Summary{Requests: 2, Rejected: 2})
	for _, want := range []string{`"Rejected":2,`, `"Utilization":null`, `"ReqPerSec":null`, `"InputTokPerSec":null`, `"OutputTokPerSec":null`} {
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("Marshal(no window) = %s, %v; want it to hold %s", b, err, want)
		}
	}
	measured := Summary{Completed: 3, Makespan: 2, BusySeconds: 1, Utilization: 0.5, ReqPerSec: 1.5, InputTokPerSec: 10, OutputTokPerSec: 20}
	if b, err = json.Marshal(measured); err != nil || !strings.Contains(string(b), `"Utilization":0.5,`) || !strings.Contains(string(b), `"ReqPerSec":1.5,"InputTokPerSec":10,"OutputTokPerSec":20,`) {
		t.Errorf("Marshal(measured) = %s, %v", b, err)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil || back.ReqPerSec != 1.5 || back.Utilization != 0.5 || back.Completed != 3 {
		t.Errorf("Unmarshal(%s) = %+v, %v", b, back, err)
	}
	ps := PoolSummary{Name: "short", Router: RoundRobin, Summary: Summary{Policy: "continuous"}, Replicas: []Summary{{Policy: "continuous"}}}
	b, err = json.Marshal(ps)
	if err != nil || !strings.HasPrefix(string(b), `{"Name":"short","Router":"round_robin","Policy":"continuous",`) ||
		!strings.Contains(string(b), `"ReqPerSec":null`) || !strings.Contains(string(b), `"Replicas":[{"Policy":"continuous",`) {
		t.Errorf("Marshal(pool) = %s, %v", b, err)
	}
	var pback PoolSummary
	if err := json.Unmarshal(b, &pback); err != nil || pback.Name != "short" || len(pback.Replicas) != 1 || pback.Policy != "continuous" {
		t.Errorf("Unmarshal(%s) = %+v, %v", b, pback, err)
	}
	cs := ClusterSummary{Summary: Summary{Requests: 1}, Pools: []PoolSummary{ps}}
	if b, err = json.Marshal(cs); err != nil || !strings.HasPrefix(string(b), `{"Policy":"","Requests":1,`) || !strings.Contains(string(b), `"Pools":[{"Name":"short",`) {
		t.Errorf("Marshal(cluster) = %s, %v", b, err)
	}
}
