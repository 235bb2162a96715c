package verify

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A process that must exit before its clean stop is done (a second
// interrupt) ends the engines it started first: none is left holding its
// port and GPUs.
func TestKillEnginesEndsTheEnginesStarted(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	t.Setenv("D", dir)
	spec := EngineSpec{Start: `touch "$D/up"; sleep 300 & echo $! > "$D/pid1"; wait`, HealthURL: fakeEngine(t, dir),
		HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second}
	e, err := StartEngine(context.Background(), spec, Knobs{}, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	KillEngines()
	waitEngineGone(t, filepath.Join(dir, "pid1"), 2*time.Second)
	checkEngineGone(t, filepath.Join(dir, "pid1"))
	os.Remove(filepath.Join(dir, "up"))
	if err := e.Stop(context.Background()); err != nil {
		t.Errorf("stopping a killed engine: %v", err)
	}
}

// waitEngineGone waits up to d for the engine process whose pid the start
// command wrote to pidFile to end.
func waitEngineGone(t *testing.T, pidFile string, d time.Duration) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("engine pid: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	for deadline := time.Now().Add(d); processRunning(pid) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
}
