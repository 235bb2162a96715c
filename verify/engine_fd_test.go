//go:build linux

package verify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A start command that fails leaves no engine log open: verify runs many
// candidates in one process, each failed start would hold a descriptor.
func TestFailedStartClosesTheLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "rank01.engine.log")
	spec := EngineSpec{Start: "echo boom; exit 7", HealthURL: "http://127.0.0.1:1/health"}
	_, err := StartEngine(context.Background(), spec, Knobs{}, log)
	var ee *EngineError
	if !errors.As(err, &ee) || ee.Status != StatusStartFailed {
		t.Fatalf("err = %v, want %s", err, StatusStartFailed)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == log {
			t.Errorf("the engine log %s is still open (fd %s) after the failed start", log, fd.Name())
		}
	}
}
