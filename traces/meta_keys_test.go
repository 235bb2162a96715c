package traces

import (
	"os"
	"path/filepath"
	"strings"
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

// A key that a CSV comment line cannot give back as written (its
// surrounding spaces would be trimmed on read) is refused, not changed.
func TestCSVMetaKeyWithSpacesRefused(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "t.jsonl")
	os.WriteFile(src, []byte(`{"meta":{"servesim.future ":"1"}}`+"\n"+`{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1}`+"\n"), 0o644)
	m, rows, err := ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.csv")
	err = WriteAll(out, m, rows)
	if err == nil {
		back, _, _ := ReadAll(out)
		t.Fatalf("written; read back unknown keys %q, want %q kept or the write refused", back.Unknown, m.Unknown)
	}
	if !strings.Contains(err.Error(), `"servesim.future "`) {
		t.Errorf("err = %v, want it to name the key", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("wrote %s", out)
	}
}

// A hand-written "# key = value" line reads as "# key=value": the space
// around '=' is trimmed on the value's side as on the key's (a value the
// writer keeps spaces in is Go-quoted).
func TestCSVMetaSpaceAroundEquals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("# servesim.model = llama\n# servesim.block_size = 16\n# servesim.x.pad = \" a \"\narrival_ns,prompt_tokens,output_tokens\n0,1,1\n"), 0o644)
	m, _, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Model != "llama" || m.BlockSize != 16 || m.Extra["pad"] != " a " {
		t.Errorf("model %q, block size %d, pad %q; want llama, 16 and \" a \"", m.Model, m.BlockSize, m.Extra["pad"])
	}
}

// An extra entry (or a checksum) with an empty value is kept on a round
// trip through every format, as an unknown key's is.
func TestEmptyExtraMetaValueKept(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrow", ".arrows", ".csv", ".jsonl"} {
		path := filepath.Join(t.TempDir(), "t"+ext)
		m := Meta{Source: "s"}
		m.Set("note", "")
		m.SetChecksum("in.csv", "")
		if err := WriteAll(path, m, sampleRequests()[:1]); err != nil {
			t.Fatal(err)
		}
		got, _, err := ReadAll(path)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := got.Extra["note"]; !ok || v != "" {
			t.Errorf("%s: extra = %v, want note with an empty value", ext, got.Extra)
		}
		if v, ok := got.Checksums["in.csv"]; !ok || v != "" {
			t.Errorf("%s: checksums = %v, want in.csv with an empty value", ext, got.Checksums)
		}
	}
}
