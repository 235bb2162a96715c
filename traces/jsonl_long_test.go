package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A JSONL line too long to read is reported with its line number and the
// limit, not as a bare "token too long".
func TestJSONLLineTooLong(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB line")
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	var b bytes.Buffer
	b.WriteString(`{"meta":{"servesim.source":"x"}}` + "\n")
	b.WriteString(`{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1}` + "\n")
	b.WriteString(`{"arrival_ns":1,"prompt_tokens":1,"output_tokens":1,"output_text":"`)
	b.Write(bytes.Repeat([]byte("a"), 64<<20))
	b.WriteString("\"}\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rows, err := ReadAll(path)
	if err == nil || !strings.Contains(err.Error(), "line 3:") || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("%d rows, err = %v; want line 3 named as longer than 64 MiB", len(rows), err)
	}
	// The same for a Mooncake import.
	b.Reset()
	b.WriteString(`{"timestamp":0,"input_length":1,"output_length":1,"hash_ids":[1]}` + "\n")
	b.WriteString(`{"timestamp":1,"input_length":1,"output_length":1,"hash_ids":[`)
	b.Write(bytes.Repeat([]byte("1,"), 32<<20))
	b.WriteString("1]}\n")
	_, err = importStringErr(FormatMooncake, b.String(), ImportOptions{Name: "mooncake.jsonl"})
	if err == nil || !strings.Contains(err.Error(), "mooncake.jsonl:2:") || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("mooncake: err = %v; want line 2 named as longer than 64 MiB", err)
	}
}
