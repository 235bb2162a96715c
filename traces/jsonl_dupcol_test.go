package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A JSONL row naming a column twice is refused, as a CSV header naming
// one twice is: decoded, the last value would win silently.
func TestJSONLRowNamingAColumnTwiceIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dup.jsonl")
	row := `{"id":"x","id":"y","arrival_ns":1,"prompt_tokens":1,"output_tokens":1}` + "\n"
	if err := os.WriteFile(path, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadAll(path)
	if err == nil || !strings.Contains(err.Error(), `"id"`) || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("ReadAll = %v, want an error naming line 1 and column \"id\"", err)
	}
}
