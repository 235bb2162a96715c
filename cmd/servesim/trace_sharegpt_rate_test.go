package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A ShareGPT rate past the clock's resolution would round its arrivals'
// gaps to nothing, every request at 0: refused as synth refuses it, by
// import and by stats alike, naming the bound.
func TestImportShareGPTRateCap(t *testing.T) {
	dir := t.TempDir()
	share := writeFile(t, dir, "share.json", `[{"id":"a","conversations":[{"from":"human","value":"hi there"},{"from":"gpt","value":"hello"}]}]`)
	out := filepath.Join(dir, "o.parquet")
	for _, args := range [][]string{
		{"trace", "import", "--rate", "2e6", share, out},
		{"trace", "stats", "--rate", "1e300", share},
	} {
		_, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "--rate: ") || !strings.Contains(err.Error(), "at most 1e+06") {
			t.Errorf("%v: exit %d, %v; want exit 2 naming --rate and its bound", args, code, err)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("wrote %s", out)
	}
	if _, code, err := runCode(t, "trace", "import", "--rate", "1e6", share, out); code != 0 {
		t.Errorf("--rate 1e6, the bound: exit %d, %v", code, err)
	}
}
