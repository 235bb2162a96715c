package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// trace stats draws a ShareGPT file's arrivals as import does: --seed
// picks the draw, so the span and rate it prints are those of the trace
// `trace import --seed` makes; for a format with timestamps it is refused.
func TestTraceStatsSeed(t *testing.T) {
	dir := t.TempDir()
	var conv []string
	for range 20 {
		conv = append(conv, `{"conversations":[{"from":"human","value":"hi there"},{"from":"gpt","value":"hello"}]}`)
	}
	share := writeFile(t, dir, "share.json", "["+strings.Join(conv, ",")+"]")
	imported := filepath.Join(dir, "s7.csv")
	if _, err := run(t, "trace", "import", "--rate", "5", "--seed", "7", share, imported); err != nil {
		t.Fatal(err)
	}
	want, err := run(t, "trace", "stats", "--json", imported)
	if err != nil {
		t.Fatal(err)
	}
	got, err := run(t, "trace", "stats", "--json", "--rate", "5", "--seed", "7", share)
	if err != nil || got != want {
		t.Errorf("stats --seed 7 of the ShareGPT file: %v\n%s\nwant the stats of its import with --seed 7:\n%s", err, got, want)
	}
	if _, code, err := runCode(t, "trace", "stats", "--seed", "7", "../../traces/testdata/azure2023_code_head200.csv"); code != 2 || err == nil || !strings.Contains(err.Error(), "--seed: ../../traces/testdata/azure2023_code_head200.csv is azure") {
		t.Errorf("stats --seed on azure: exit %d, %v; want exit 2 naming --seed", code, err)
	}
}
