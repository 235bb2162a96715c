package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory named like a trace is refused when opened, in every format:
// a JSON Lines reader that found out only at its first row would let
// record probe the engine before failing.
func TestOpenRefusesDirectory(t *testing.T) {
	for _, ext := range []string{".jsonl", ".csv", ".parquet", ".arrow", ".arrows"} {
		path := filepath.Join(t.TempDir(), "t"+ext)
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path)
		if err == nil {
			r.Close()
			t.Errorf("%s: Open of a directory succeeded", ext)
			continue
		}
		if !strings.Contains(err.Error(), "is a directory") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q does not name %s as a directory", ext, err, path)
		}
	}
}
