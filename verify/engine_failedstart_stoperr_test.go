package verify

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A failed start stops what it launched; when that stop fails too (the
// stop command, a server still answering, the engine log's close), the
// failed start's detail says so after its own reason: what the launcher
// set up may still run, and the log may be cut short.
func TestFailedStartReportsTheStopError(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	spec := EngineSpec{
		Start:     `echo rollout timed out >&2; exit 3`,
		Stop:      `exit 4`,
		HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second,
	}
	_, err := StartEngine(context.Background(), spec, Knobs{MaxNumSeqs: 4}, filepath.Join(dir, "log"))
	var ee *EngineError
	if !errors.As(err, &ee) || ee.Status != StatusStartFailed {
		t.Fatalf("err = %v, want %s", err, StatusStartFailed)
	}
	if !strings.Contains(ee.Msg, "exit status 3") || !strings.Contains(ee.Msg, "stop command: exit status 4") {
		t.Errorf("detail %q: want the start's exit status, then the stop command's", ee.Msg)
	}
}
