package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A Parquet file neither reader can open fails each for the same reason:
// the error gives it once, not as sweep results' and again as a trace's.
func TestLoadUnreadableParquetSaysWhyOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.parquet")
	if err := os.WriteFile(path, []byte("PAR1 not a whole file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(traces.SLO{}, path)
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.Count(msg, "not a readable Parquet file") != 1 || !strings.HasPrefix(msg, path+": ") {
		t.Errorf("error %q: want the path, then the reason once", msg)
	}
}
