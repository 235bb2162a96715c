package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A failed start quotes what the engine wrote, not the line verify wrote
// before it (the whole command, which verify.json and the log hold): the
// table cuts the detail short, and the command would fill it.
func TestFailedStartQuotesTheEngineNotTheCommand(t *testing.T) {
	dir := t.TempDir()
	start := "echo cannot bind port >&2; exit 1 # " + strings.Repeat("--some-engine-flag value ", 20)
	spec := EngineSpec{Start: start, HealthURL: "http://127.0.0.1:1/health"}
	_, err := StartEngine(context.Background(), spec, Knobs{}, filepath.Join(dir, "rank01.engine.log"))
	if err == nil {
		t.Fatal("an engine command that exits 1 started")
	}
	msg := err.Error()
	if !strings.Contains(msg, "ends: cannot bind port") || strings.Contains(msg, "some-engine-flag") {
		t.Errorf("err = %v: want the log's tail to be the engine's output alone", err)
	}
}
