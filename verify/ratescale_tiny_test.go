package verify

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// A rate scale so small that its time scale (1/rate_scale) is past what a
// float holds is refused as a bad plan, and the result still writes to
// JSON (which cannot hold +Inf): it is not simulated at an infinite time
// scale nor recorded with one.
func TestRateScaleWithoutAFiniteTimeScaleIsRefused(t *testing.T) {
	dir := t.TempDir()
	cf := candidates(1)
	cf.Candidates[0].RateScale = 1e-320
	res, err := Run(context.Background(), Options{Candidates: cf, Trace: writeTrace(t, dir, 3, 10*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Candidates[0]; c.Status != StatusPlan {
		t.Errorf("rate_scale 1e-320: status %s (%s), time scale %v: want %s", c.Status, c.Detail, c.TimeScale, StatusPlan)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("verify.json does not write: %v", err)
	}
}
