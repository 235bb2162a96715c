package sim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A run whose every request is refused on arrival has a window of no
// length: the KV mean over it, like the rates, was not measured and is
// written as null, not as 0 blocks in use. The peak and the block count
// stand.
func TestSummaryJSONKVMeanNullWithoutAWindow(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Policy = policy(t, Serial)
	cfg.TotalBlocks = 4
	cfg.Step = testTimer
	big := req("big", 5, 10_000, 3) // more blocks than the engine holds
	sum, err := Run(t.Context(), cfg, newSliceReader([]*traces.Request{big}), &memWriter{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rejected != 1 || sum.Makespan != 0 {
		t.Fatalf("rejected %d, makespan %v: want the request refused, no window", sum.Rejected, sum.Makespan)
	}
	b, err := json.Marshal(sum)
	for _, want := range []string{`"MeanUsed":null`, `"MeanUtil":null`, `"TotalBlocks":4,`, `"MaxUsed":0,`, `"ReqPerSec":null`} {
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("Marshal(no window) = %s, %v; want it to hold %s", b, err, want)
		}
	}
	measured := Summary{Makespan: 2, KV: KVStats{TotalBlocks: 10, MeanUsed: 5, MeanUtil: 0.5}}
	var back Summary
	if b, err = json.Marshal(measured); err != nil || json.Unmarshal(b, &back) != nil || back.KV.MeanUsed != 5 || back.KV.MeanUtil != 0.5 {
		t.Errorf("Marshal(measured) = %s, %v; decoded KV %+v", b, err, back.KV)
	}
}
