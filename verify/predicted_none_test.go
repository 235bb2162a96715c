package verify

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A candidate the simulator predicts completes nothing (every request
// rejected) but the engine serves in full is a miss, not a pass.
func TestPredictedNothingCompletedIsNotAPass(t *testing.T) {
	dir := t.TempDir()
	cf := candidates(4)
	cf.Candidates[0].Plan = strings.Replace(fmt.Sprintf(tinyPlan, 4), "max_model_len = 4096", "max_model_len = 64", 1)
	res, err := Run(context.Background(), Options{Candidates: cf, Trace: writeTrace(t, dir, 6, 10*time.Millisecond),
		Replay: stubReplay(t), Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Status != StatusOK || c.Predicted.Completed != 0 || c.Measured.Completed == 0 {
		t.Fatalf("status %s %s; predicted %d/%d, measured %d/%d: want a candidate the engine serves and the simulator rejects in full",
			c.Status, c.Detail, c.Predicted.Completed, c.Predicted.Requests, c.Measured.Completed, c.Measured.Requests)
	}
	if c.Pass == nil || *c.Pass || res.ToleranceFailures == 0 {
		var b strings.Builder
		res.WriteTable(&b)
		t.Errorf("predicted 0 of %d completed, measured %d: pass %v, %d tolerance failures: want a failure (exit 4)\n%s",
			c.Predicted.Requests, c.Measured.Completed, c.Pass != nil && *c.Pass, res.ToleranceFailures, b.String())
	}
}
