package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A refused telemetry flag names the command it was given to, "record
// proxy" as the proxy's other errors do, not "proxy" alone.
func TestTelemetryFlagErrorsNameTheCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cap.parquet")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--out", out, "--gpu-devices", "0"},
			"record proxy: --gpu-devices needs --gpu"},
		{[]string{"record", "proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--out", out, "--telemetry-interval", "2s"},
			"record proxy: --telemetry-interval needs --gpu or --engine-metrics"},
	} {
		_, code, err := runCode(t, tc.args...)
		if code != 2 || err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, %v; want exit 2, %q", tc.args, code, err, tc.want)
		}
	}
}
