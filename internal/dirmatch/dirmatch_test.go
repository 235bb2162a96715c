package dirmatch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The pattern is matched against names only: the directory's own name is
// never read as a pattern, and subdirectories are not files.
func TestFilesInADirectoryNamedLikeAPattern(t *testing.T) {
	for _, name := range []string{"runs[1]", "runs*", "a\\b"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Skipf("%s: %v", name, err)
		}
		for _, f := range []string{"b.parquet", "a.parquet", "a.csv"} {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Mkdir(filepath.Join(dir, "sub.parquet"), 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := Files(dir, "*.parquet")
		want := []string{filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: Files = %v, %v; want %v", name, got, err, want)
		}
	}
}

func TestFilesRefusesABadPattern(t *testing.T) {
	if _, err := Files(t.TempDir(), "[0-9"); !errors.Is(err, filepath.ErrBadPattern) {
		t.Errorf("err = %v, want filepath.ErrBadPattern", err)
	}
}
