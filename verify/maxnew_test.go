package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A candidate's max_new_tokens caps every output, simulated and measured
// alike: the simulator stops each request at the cap, so the replay must
// ask for no more. Twelve-token rows under a cap of 4 were predicted at 4
// tokens each and measured at 12, so throughput, TPOT and cost compared
// different work.
func TestRunCapsMeasuredOutputsAtMaxNewTokens(t *testing.T) {
	dir := t.TempDir()
	cf := candidates(4)
	cf.Candidates[0].Plan = strings.Replace(cf.Candidates[0].Plan, "max_new_tokens = 4096", "max_new_tokens = 4", 1)
	res, err := Run(context.Background(), Options{
		Candidates: cf, Trace: writeTrace(t, dir, 6, 50*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Status != StatusOK {
		t.Fatalf("%s: %s", c.Status, c.Detail)
	}
	if c.Predicted.OutputTokens != 24 || c.Measured.OutputTokens != 24 {
		t.Errorf("output tokens predicted %d, measured %d: want 24 each (6 requests capped at 4)",
			c.Predicted.OutputTokens, c.Measured.OutputTokens)
	}
}
