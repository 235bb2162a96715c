package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A flag given to record before "proxy" is record's: the proxy never reads
// it, so --model (the trace's metadata) or --gpu would be dropped without a
// word. It is refused, naming the flag and where it goes.
func TestRecordProxyRefusesRecordFlagsBeforeIt(t *testing.T) {
	// --out's directory is missing: a proxy that ignored the flag fails
	// on --out instead of listening.
	out := filepath.Join(t.TempDir(), "missing", "cap.parquet")
	for _, flag := range [][]string{{"--model", "m"}, {"--keep-text"}, {"--trace", "t.csv"}} {
		args := append(append([]string{"record"}, flag...), "proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--out", out)
		_, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), flag[0]) || !strings.Contains(err.Error(), "before 'proxy'") {
			t.Errorf("%v: exit %d, %v; want exit 2 naming %s given before 'proxy'", args, code, err, flag[0])
		}
	}
}
