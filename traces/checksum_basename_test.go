package traces

import (
	"os"
	"path/filepath"
	"testing"
)

// A trace that names its input by a file name it shares (a recording of
// in/trace.csv written to runs/trace.csv) keeps that input's checksum on
// import, beside its own: neither replaces the other.
func TestImportKeepsInputChecksumOfTheSameName(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "runs"), 0o755)
	path := filepath.Join(dir, "runs", "trace.csv")
	if err := WriteAll(path, Meta{Source: "live", Checksums: map[string]string{"trace.csv": "sha256:ab12"}}, rowsAt(0, 1)); err != nil {
		t.Fatal(err)
	}
	m, _ := importAll(t, path, FormatServesim, ImportOptions{})
	own, err := FileChecksum(path)
	if err != nil {
		t.Fatal(err)
	}
	if !SameInputs(m.Checksums, map[string]string{"a": "sha256:ab12", "b": own}) {
		t.Errorf("checksums %v, want the input's sha256:ab12 and the file's own %s", m.Checksums, own)
	}
}
