package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Create refuses a block size that Open would refuse: else the library
// writes a trace it cannot read back. The error names the file and the
// field, and the file is not created.
func TestCreateRefusesBlockSizeOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, bs := range []int{MaxBlockSize + 1, -1} {
		for _, name := range []string{"t.parquet", "t.csv", "t.jsonl", "t.arrows"} {
			path := filepath.Join(dir, name)
			w, err := Create(path, Meta{BlockSize: bs})
			if err == nil {
				w.Close()
				t.Errorf("%s: created with block size %d", name, bs)
				continue
			}
			for _, want := range []string{path, "servesim.block_size", "10000000"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s, block size %d: err = %v, want it to name %q", name, bs, err, want)
				}
			}
			if _, err := os.Lstat(path); err == nil {
				t.Errorf("%s: file left after the refusal", name)
			}
		}
	}
}

// The bound itself is a block size Create writes and Open reads back.
func TestCreateWritesBlockSizeAtBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.parquet")
	w, err := Create(path, Meta{BlockSize: MaxBlockSize})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Meta().BlockSize; got != MaxBlockSize {
		t.Errorf("block size %d, want %d", got, MaxBlockSize)
	}
}
