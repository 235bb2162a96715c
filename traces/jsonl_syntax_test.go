package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A JSONL row that is not valid JSON, or is cut short, names its line, the
// column where it goes wrong and that a JSON object was wanted, as a value
// of the wrong type does.
func TestJSONLSyntaxErrorNamesColumn(t *testing.T) {
	for _, c := range []struct{ row, want string }{
		{`{"arrival_ns": 1 x}`, `line 1:18: want a JSON object: invalid character 'x'`},
		{`{"arrival_ns": 1`, `line 1:16: want a JSON object: unexpected EOF`},
	} {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, []byte(c.row+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
		}
		r.Close()
		if err := r.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.row, err, c.want)
		}
	}
}
