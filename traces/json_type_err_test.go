package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A JSON value of the wrong type is reported as the file's line, the
// value's column and field, and what was wanted, in words rather than in
// encoding/json's Go type names; a line that is not an object says so.
func TestJSONLineOfTheWrongTypeNamesWhatWasWanted(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body, want string
		format           ImportFormat
	}{
		{"str.jsonl", `{"arrival_ns":"5","prompt_tokens":1,"output_tokens":1}`, `line 1:15 (arrival_ns): want int64, got JSON string`, FormatServesim},
		{"arr.jsonl", `[1,2]`, `line 1:1: want a JSON object, got JSON array`, FormatServesim},
		{"moon.jsonl", `[1,2]`, `moon.jsonl:1:1: want a JSON object, got JSON array`, FormatMooncake},
		{"moonstr.jsonl", `"x"`, `moonstr.jsonl:1:1: want a JSON object, got JSON string`, FormatMooncake},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Import(path, tc.format, ImportOptions{})
		for err == nil && r.Next() {
		}
		if err == nil {
			err = r.Err()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "traces.") {
			t.Errorf("%s %s: err = %v; want %q", tc.format, tc.body, err, tc.want)
		}
	}
}

// A ShareGPT conversation with a value of the wrong type names the field
// and the JSON kind wanted, not the Go struct encoding/json decodes into.
func TestShareGPTValueOfTheWrongTypeNamesWhatWasWanted(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		`[{"id":"a","conversations":"oops"}]`:                       `(conversation 1): want {"id", "conversations": [{"from", "value"}]}: conversations: want a JSON array, got JSON string`,
		`[{"id":"a","conversations":[{"from":"human","value":5}]}]`: `conversations.value: want a JSON string, got JSON number`,
		`["oops"]`: `(conversation 1): want {"id", "conversations": [{"from", "value"}]}: want a JSON object, got JSON string`,
	} {
		path := filepath.Join(dir, "share.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Import(path, FormatShareGPT, ImportOptions{Rate: 1})
		for err == nil && r.Next() {
		}
		if err == nil {
			err = r.Err()
		}
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s: err = %v; want %q", body, err, want)
		}
	}
}

// A metadata value that is not a string names its key and the JSON kind
// wanted.
func TestJSONLMetadataValueOfTheWrongTypeNamesWhatWasWanted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.jsonl")
	body := `{"meta": {"servesim.source": 5}}` + "\n" + `{"arrival_ns":1,"prompt_tokens":1,"output_tokens":1}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadAll(path)
	want := "line 1: metadata: servesim.source: want a JSON string, got JSON number"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("ReadAll = %v; want %q", err, want)
	}
}
