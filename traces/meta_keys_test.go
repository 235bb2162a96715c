package traces

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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

// Metadata keys that a plain "# key=value" line could not give back as
// written ('=', a line break, a quote, '#', surrounding space) are written
// Go-quoted in CSV and read back unchanged, from another format's trace
// as from a Meta.
func TestCSVAwkwardMetaKeysRoundTrip(t *testing.T) {
	dir := t.TempDir()
	keys := []string{"a=b", "line\nbreak", "cr\rlf", `"quoted"`, `mid"quote`, "#hash", "x#y", " lead", "trail ", "tab\t", `back\slash`, "=", ""}
	m := Meta{Source: "s"}
	for i, k := range keys {
		m.Set(k, fmt.Sprint("v", i))
	}
	m.Unknown = map[string]string{"future ": "u", "fu=ture": " spaced "}
	path := filepath.Join(dir, "t.csv")
	if err := WriteAll(path, m, sampleRequests()[:1]); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadAll(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, mustRead(t, path))
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("read back %#v\nwant %#v\nfile:\n%s", got, m, mustRead(t, path))
	}

	// The same keys from a JSONL trace convert to CSV and back.
	src := filepath.Join(dir, "t.jsonl")
	os.WriteFile(src, []byte(`{"meta":{"servesim.future ":"1","servesim.x.a=b\nc":"2"}}`+"\n"+`{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1}`+"\n"), 0o644)
	jm, rows, err := ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "u.csv")
	if err := WriteAll(out, jm, rows); err != nil {
		t.Fatal(err)
	}
	back, _, err := ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Unknown["future "] != "1" || back.Extra["a=b\nc"] != "2" {
		t.Errorf("read back unknown %q extra %q, want %q and %q", back.Unknown, back.Extra, jm.Unknown, jm.Extra)
	}
}

// A quoted key must be a whole Go string followed by '='.
func TestCSVQuotedMetaKeyErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`# "servesim.x.a=1`, "line 1: metadata key starting with '\"' must be a Go-quoted string"},
		{`# "servesim.x.a" 1`, `line 1: metadata key "servesim.x.a": want '=' after it`},
	} {
		path := filepath.Join(t.TempDir(), "t.csv")
		os.WriteFile(path, []byte(tc.line+"\n"+csvHeader+"0,1,1\n"), 0o644)
		if _, _, err := ReadAll(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.line, err, tc.want)
		}
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
