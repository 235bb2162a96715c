package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An engine that outlives its stop (its health URL still answers) is
// said in the candidate's detail, once measured as with --repeat: the next
// candidate's start is refused because of it, and verify.json should say
// whose engine was left running.
func TestRunSaysAnEngineThatWasNotStopped(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	cfg := stubReplay(t)
	// Stopping the group leaves "up": the health URL keeps answering.
	cmd := `touch "$D/up"; sleep 300 & wait`
	res, err := Run(context.Background(), Options{
		Candidates: candidates(1), Trace: writeTrace(t, dir, 4, 20*time.Millisecond), Replay: cfg,
		Engine: &EngineSpec{Start: cmd, HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 500 * time.Millisecond},
		Out:    filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Candidates[0]; c.Status != StatusOK || !strings.Contains(c.Detail, "stopping the engine") || !strings.Contains(c.Detail, "still answers") {
		t.Errorf("candidate: %s, detail %q: want it measured, its detail saying the engine still answered after the stop", c.Status, c.Detail)
	}
}
