package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A public trace given where a servesim trace is wanted fails for want of
// servesim's columns; the error names the import that reads it, as its
// own columns are sniffed.
func TestTraceConvertOfAPublicTraceNamesTheImport(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "azure.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n")
	for _, args := range [][]string{
		{"trace", "convert", in, filepath.Join(dir, "out.jsonl")},
		{"trace", "slice", "--from", "0s", in, filepath.Join(dir, "out2.jsonl")},
	} {
		msg, err := run(t, args...)
		if err == nil {
			t.Fatalf("%v: no error", args)
		}
		if want := "servesim trace import --format azure"; !strings.Contains(err.Error()+msg, want) {
			t.Errorf("%v: error %q, output %q: want %q", args, err, msg, want)
		}
	}
}
