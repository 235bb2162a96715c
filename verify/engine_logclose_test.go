package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The engine log's last writes may fail only when it is synced or
// closed: Stop reports that, naming the log, rather than leaving a log
// cut short unannounced.
func TestEngineStopReportsTheLogCloseError(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	spec := EngineSpec{Start: `trap 'rm -f "$D/up"; exit 0' TERM; touch "$D/up"; sleep 300 & wait`,
		HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second}
	log := filepath.Join(dir, "engine.log")
	e, err := StartEngine(context.Background(), spec, Knobs{}, log)
	if err != nil {
		t.Fatal(err)
	}
	// A close that fails, as one after a write-back error does.
	e.log.Close()
	err = e.Stop(context.Background())
	if err == nil || !strings.Contains(err.Error(), "engine log") || !strings.Contains(err.Error(), log) {
		t.Errorf("Stop: %v; want the engine log's close error, naming %s", err, log)
	}
}
