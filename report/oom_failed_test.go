package report

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A plan that ran out of KV memory served none of its 32 requests: they
// are failures (its trace writes each with 'not run: out of KV memory'),
// so the comparison's failure share is 100%, not unknown or 0.
func TestSummaryCountsUnservedRequestsAsFailed(t *testing.T) {
	in, err := Load(t.Context(), traces.SLO{}, filepath.Join("testdata", "summary-oom.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := in.Runs[0].Metrics
	if m.Requests != 32 || m.Completed != 0 || m.Failed != 32 {
		t.Errorf("requests %d, completed %d, failed %d; want 32, 0, 32", m.Requests, m.Completed, m.Failed)
	}
	if f := failRate(m); math.IsNaN(f) || f != 1 {
		t.Errorf("failure share %v, want 1", f)
	}
}
