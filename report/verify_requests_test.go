package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// verify's table gives each measured candidate's completed requests, and
// the kinds of failure; the report's table left them out, so a candidate
// whose latencies came from 18 of 20 requests read as a full measurement.
func TestVerificationTableCountsRequests(t *testing.T) {
	p, m := 1.2, 1.0
	c := verify.CandidateResult{Rank: 1, Label: "a",
		Repeat:    verify.Repeat{Status: verify.StatusOK, Trace: "missing.parquet", FailedByKind: map[string]int{"timeout": 2}},
		Predicted: verify.Metrics{Requests: 20, Completed: 20},
		SimTrace:  "missing.sim.parquet",
		Rows:      verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p}, &verify.Metrics{OutTokPerSec: &m}, verify.DefaultTolerances())}
	c.Measured.Requests, c.Measured.Completed = 20, 18
	blocks, err := VerificationSection{Result: &verify.Result{Requests: 20, Slice: "20", Candidates: []verify.CandidateResult{c}}}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if tab, ok := b.(*Table); ok {
			for _, r := range tab.Rows {
				line := strings.Join(r, " | ")
				if strings.Contains(line, "20/20 | 18/20") && strings.Contains(line, "timeout×2") {
					return
				}
			}
			t.Fatalf("no row gives 20/20 predicted, 18/20 measured and the timeouts: %q", tab.Rows)
		}
	}
	t.Fatal("no table")
}
