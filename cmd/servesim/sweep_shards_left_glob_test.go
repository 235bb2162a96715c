package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shard files left in --out are found whatever the folder is named:
// a name holding a glob's special characters ("runs[1]") is a folder,
// not a pattern.
func TestWarnShardsLeftInAFolderNamedLikeAPattern(t *testing.T) {
	for _, name := range []string{"runs[1]", "runs*", "a\\b"} {
		out := filepath.Join(t.TempDir(), name)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Skipf("%s: %v", name, err)
		}
		shard := filepath.Join(out, "sweep-shard-0-of-2.parquet")
		if err := os.WriteFile(shard, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		warnShardsLeft(&log, out)
		if !strings.Contains(log.String(), shard) {
			t.Errorf("%s: warning %q, want it to name %s", name, log.String(), shard)
		}
	}
}
