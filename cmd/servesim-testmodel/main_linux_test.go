package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/model/gguf"
)

// A model whose write fails part way (here past the file size limit, as on
// a full disk) leaves nothing behind, and the error names model.gguf, not
// the temporary file that is already gone.
func TestRunFailedWriteNamesTheModel(t *testing.T) {
	dir := t.TempDir()
	cfg := gguf.DefaultLlamaConfig()
	cfg.Layers, cfg.Dim, cfg.Heads, cfg.KVHeads, cfg.FFN, cfg.Vocab = 1, 16, 2, 1, 16, 300
	var err error
	testfs.WithFileSizeLimit(t, 1000, func() { err = run(dir, cfg, 1, 1) })
	if path := filepath.Join(dir, "model.gguf"); err == nil || !strings.Contains(err.Error(), path+":") {
		t.Errorf("run: %v, want an error naming %s", err, path)
	} else if strings.Contains(err.Error(), ".tmp") {
		t.Errorf("run: %v names the temporary file, which is gone", err)
	}
	if names := testfs.Names(t, dir); len(names) != 0 {
		t.Errorf("folder holds %q, want nothing written", names)
	}
}

// A model larger than the free space under -out is refused before a byte
// is written, rather than filling the disk and failing part way.
func TestRunRefusesAModelLargerThanTheFreeSpace(t *testing.T) {
	dir := t.TempDir()
	cfg := gguf.DefaultLlamaConfig()
	// Hundreds of TiB, in rows small enough to allocate.
	cfg.Layers, cfg.Dim, cfg.Heads, cfg.KVHeads, cfg.FFN, cfg.Vocab = 1000, 4096, 32, 8, 1<<24, 300
	var err error
	testfs.WithFileSizeLimit(t, 1000, func() { err = run(dir, cfg, 1, 1) })
	if err == nil || !strings.Contains(err.Error(), "free") || !strings.Contains(err.Error(), dir) {
		t.Errorf("run: %v, want an error naming the free space in %s", err, dir)
	}
	if names := testfs.Names(t, dir); len(names) != 0 {
		t.Errorf("folder holds %q, want nothing written", names)
	}
}
