package report

import (
	"os"
	"path/filepath"
	"strconv"
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
	_, err := Load(t.Context(), traces.SLO{}, path)
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.Count(msg, "not a readable Parquet file") != 1 || !strings.HasPrefix(msg, path+": ") {
		t.Errorf("error %q: want the path, then the reason once", msg)
	}
}

// A results file corrupt where both readers fail alike, in the Parquet
// library or at its stored Arrow schema, also says why once.
func TestLoadCorruptParquetSaysWhyOnce(t *testing.T) {
	raw, err := os.ReadFile("../sim/sweep/testdata/fuzz/FuzzReadResults/seed-valid")
	if err != nil {
		t.Fatal(err)
	}
	quoted := strings.TrimSuffix(strings.TrimPrefix(string(raw), "go test fuzz v1\n[]byte("), ")\n")
	valid, err := strconv.Unquote(quoted)
	if err != nil {
		t.Fatal(err)
	}
	for off, why := range map[int]string{826: "corrupt file", 17787: "stored Arrow schema"} { // a data page; the schema
		data := []byte(valid)
		data[off] ^= 1
		path := filepath.Join(t.TempDir(), "results.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(t.Context(), traces.SLO{}, path)
		if err == nil {
			t.Fatalf("byte %d changed: no error", off)
		}
		if msg := err.Error(); strings.Count(msg, why) != 1 || !strings.HasPrefix(msg, path+": ") {
			t.Errorf("byte %d changed: error %q: want the path, then %q once", off, msg, why)
		}
	}
}
