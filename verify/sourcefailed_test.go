package verify

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// A row its source trace marks failed (BurstGPT's 0 response tokens) has
// no length to serve: the simulator rejects it under every plan, while the
// replay sent it with max_tokens 1 and it succeeded. Predicted and measured
// then counted different requests (5 against 6 completed here), and a
// one-token answer pulled the measured mean TTFT and throughput away from
// the prediction. The slice leaves such rows out, as the sweep's SLO does.
func TestRunLeavesSourceFailedRowsOut(t *testing.T) {
	dir := t.TempDir()
	var reqs []*traces.Request
	for i := range 6 {
		var r traces.Request
		r.Reset()
		r.ID = fmt.Sprintf("r%03d", i)
		r.Arrival = int64(i) * int64(50*time.Millisecond)
		r.PromptTokens, r.OutputTokens = 60, 12
		if i == 3 {
			r.OutputTokens, r.SourceFailed = 0, true
		}
		reqs = append(reqs, &r)
	}
	trace := filepath.Join(dir, "trace.parquet")
	if err := traces.WriteAll(trace, traces.Meta{Source: "test"}, reqs); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{
		Candidates: candidates(4), Trace: trace, Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Status != StatusOK {
		t.Fatalf("%s: %s", c.Status, c.Detail)
	}
	p, m := c.Predicted, c.Measured
	if p.Requests != m.Requests || p.Completed != m.Completed || p.OutputTokens != m.OutputTokens {
		t.Errorf("predicted %d of %d requests completed, %d output tokens; measured %d of %d, %d: want the same requests",
			p.Completed, p.Requests, p.OutputTokens, m.Completed, m.Requests, m.OutputTokens)
	}
	if res.Requests != 5 || m.Completed != 5 {
		t.Errorf("slice of %d requests, %d measured completed: want 5, the row failed in its source left out", res.Requests, m.Completed)
	}
}
