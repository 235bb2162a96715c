package sweep

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A results file with one byte changed is refused with an error naming
// it: neither a panic in the Parquet reader nor a schema whose lengths
// ask for more memory than there is crashes sweep merge, report or
// verify.
func TestReadFileCorrupt(t *testing.T) {
	raw, err := os.ReadFile("testdata/fuzz/FuzzReadResults/seed-valid")
	if err != nil {
		t.Fatal(err)
	}
	quoted := strings.TrimSuffix(strings.TrimPrefix(string(raw), "go test fuzz v1\n[]byte("), ")\n")
	valid, err := strconv.Unquote(quoted)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int{826, 17787} { // a data page; the stored Arrow schema
		t.Run(strconv.Itoa(off), func(t *testing.T) {
			data := []byte(valid)
			data[off] ^= 1
			path := filepath.Join(t.TempDir(), "results.parquet")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("ReadFile = %v, want an error naming the file", err)
			}
		})
	}
}
