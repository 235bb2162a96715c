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

// JSONL keys are column names as a CSV header's are, exactly: encoding/json
// matched them ignoring case, so "ARRIVAL_NS" was read as arrival_ns and
// {"id":"x","ID":"y"} kept "y" past the check for a column named twice.
func TestJSONLKeyInAnotherCaseIsRefused(t *testing.T) {
	for _, tc := range []struct{ row, key string }{
		{`{"ARRIVAL_NS":1,"prompt_tokens":1,"output_tokens":1}`, "ARRIVAL_NS"},
		{`{"id":"x","ID":"y","arrival_ns":1,"prompt_tokens":1,"output_tokens":1}`, "ID"},
		{`{"arrival_ns":1,"prompt_tokens":1,"output_tokens":1,"Token_Times_ns":[null]}`, "Token_Times_ns"},
	} {
		path := filepath.Join(t.TempDir(), "case.jsonl")
		if err := os.WriteFile(path, []byte(tc.row+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, rows, err := ReadAll(path)
		want := `line 1: unknown column "` + tc.key + `"`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %d rows, err = %v; want %q", tc.row, len(rows), err, want)
		}
	}
}

// A misspelt JSONL key is refused in the words a CSV header's is, naming
// the columns it could have been, not in encoding/json's.
func TestJSONLUnknownKeyNamesTheColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.jsonl")
	row := `{"arrival_ns":1,"prompt_tokens":1,"output_tokens":1,"first_token":5}` + "\n"
	if err := os.WriteFile(path, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadAll(path)
	want := `line 1: unknown column "first_token" (known: ` + strings.Join(ColumnNames(), ",") + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("ReadAll = %v, want %q", err, want)
	}
}

// A line that is not an object is refused as one, not as a row whose
// first key is unknown.
func TestJSONLArrayLineRefusedAsNotAnObject(t *testing.T) {
	path := filepath.Join(t.TempDir(), "array.jsonl")
	if err := os.WriteFile(path, []byte("[1,2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadAll(path)
	if err == nil || !strings.Contains(err.Error(), "line 1:1: want a JSON object, got JSON array") {
		t.Fatalf("ReadAll = %v, want line 1 refused as an array", err)
	}
}
