package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
)

// What simulate writes as null (rates and KV mean over no time, a hit rate
// without lookups, an empty distribution's statistics) reads back: the
// report takes its summary.json as written.
func TestParseSummaryReadsItsNulls(t *testing.T) {
	results := []*plan.Result{
		{Name: "refused", Summary: &sim.Summary{Requests: 1, Rejected: 1, KV: sim.KVStats{TotalBlocks: 4}}},
		{Name: "ran", Summary: &sim.Summary{Requests: 1, Completed: 1, Makespan: 2, ReqPerSec: 0.5}},
	}
	data, err := json.Marshal(results)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"PrefixHitRate":null`); n != 2 {
		t.Fatalf("%s holds %d null hit rates, want 2", data, n)
	}
	back, err := ParseSummary(data, "summary.json")
	if err != nil {
		t.Fatalf("ParseSummary(%s): %v", data, err)
	}
	if s := back[1].Summary; s.ReqPerSec != 0.5 || s.PrefixHitRate != 0 || back[0].Summary.KV.TotalBlocks != 4 {
		t.Errorf("read back %+v and %+v", back[0].Summary, s)
	}
}
