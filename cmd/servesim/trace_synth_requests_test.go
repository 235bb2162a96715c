package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A trace of no measured requests is useless to every later verb, so
// synth refuses --requests 0 as a usage error and writes nothing.
func TestSynthRefusesZeroRequests(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.csv")
	for _, n := range []string{"0", "-1"} {
		_, code, err := runCode(t, "trace", "synth", "--requests", n, out)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "synth: --requests: want at least 1, got "+n) {
			t.Errorf("--requests %s: exit %d, err = %v; want exit 2 naming --requests", n, code, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--requests %s: wrote %s", n, out)
			os.Remove(out)
		}
	}
}
