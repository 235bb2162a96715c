package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --session-wait holds turns against the open loop's schedule: with a
// closed loop, from the flag or the settings file, it is a usage error
// naming where it was set.
func TestRecordSessionWaitClosedLoopIsUsageError(t *testing.T) {
	out, code, err := runCode(t, "record", "--arrival", "closed", "--concurrency", "2", "--session-wait",
		"--trace", "x.csv", "--out", "y.csv", "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--session-wait: applies to the open loop only") {
		t.Errorf("want an error naming --session-wait, exit status 2; got %d, %v\n%s", code, err, out)
	}
	settings := filepath.Join(t.TempDir(), "s.toml")
	if err := os.WriteFile(settings, []byte("session_wait = true\narrival = \"closed\"\nconcurrency = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code, err = runCode(t, "record", "--settings", settings,
		"--trace", "x.csv", "--out", "y.csv", "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "session_wait in "+settings+": applies to the open loop only") {
		t.Errorf("want an error naming session_wait in the settings file, exit status 2; got %d, %v\n%s", code, err, out)
	}
}
