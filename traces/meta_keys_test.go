package traces

import (
	"path/filepath"
	"testing"
)

// A servesim.* key this version does not know is written back unchanged,
// an empty value included.
func TestUnknownEmptyMetaKeyKept(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrows", ".csv", ".jsonl"} {
		path := filepath.Join(t.TempDir(), "t"+ext)
		m := Meta{Source: "s", Unknown: map[string]string{"future": ""}}
		if err := WriteAll(path, m, sampleRequests()[:1]); err != nil {
			t.Fatal(err)
		}
		got, _, err := ReadAll(path)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := got.Unknown["future"]; !ok || v != "" {
			t.Errorf("%s: unknown keys = %v, want future with an empty value", ext, got.Unknown)
		}
	}
}
