package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// verify.json names its files from its own directory; LoadResult turns
// them into paths from the current directory. A verify.json written
// before, whose paths name files from the directory verify ran in, still
// finds them from there.
func TestLoadResultResolvesPathsFromItsDirectory(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "verify.json")) // paths like verify-out/rank01.parquet
	if err != nil {
		t.Fatal(err)
	}
	res, err := ParseResult(data, "verify.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("verify-out", 0o755)
	os.WriteFile(filepath.Join("verify-out", "rank01.parquet"), nil, 0o644)
	os.WriteFile(filepath.Join("verify-out", "verify.json"), data, 0o644)
	old, err := LoadResult(filepath.Join("verify-out", "verify.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := old.Candidates[0].Trace; got != filepath.Join("verify-out", "rank01.parquet") {
		t.Errorf("an older verify.json's trace: %q, want the file it found from the directory verify ran in", got)
	}

	// Written now from the same result, into runs/a: read back from
	// another directory, every path finds the same file.
	rel := res.RelativeTo(filepath.Join("runs", "a"))
	if res.Candidates[0].Trace != filepath.Join("verify-out", "rank01.parquet") {
		t.Errorf("RelativeTo changed the result it copies: %q", res.Candidates[0].Trace)
	}
	if got, want := rel.Candidates[0].Trace, filepath.Join("..", "..", "verify-out", "rank01.parquet"); got != want {
		t.Errorf("written trace %q, want %q", got, want)
	}
	os.MkdirAll(filepath.Join("runs", "a"), 0o755)
	if err := writeJSON(filepath.Join("runs", "a", "verify.json"), rel); err != nil {
		t.Fatal(err)
	}
	os.Mkdir("b", 0o755)
	t.Chdir("b")
	back, err := LoadResult(filepath.Join("..", "runs", "a", "verify.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Candidates[0].Trace; got != filepath.Join("..", "verify-out", "rank01.parquet") {
		t.Errorf("read back from another directory: trace %q, want ../verify-out/rank01.parquet", got)
	}
	if _, err := os.Stat(back.Candidates[0].Trace); err != nil {
		t.Error(err)
	}
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
