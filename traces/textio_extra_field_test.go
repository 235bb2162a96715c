package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A servesim CSV row longer than its header is refused naming the column
// of its first field past the header's, as an import's is.
func TestCSVExtraFieldNamesItsColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(csvHeader+"0,10,10\n5,10,10,99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err == nil {
		for r.Next() {
		}
		err = r.Err()
		r.Close()
	}
	const want = "line 3, column 9: want 3 fields as in the header, got 4"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}
