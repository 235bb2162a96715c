package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/model/gguf"
)

// The model and its Modelfile are written whole, over an earlier pair,
// and nothing else is left in the folder.
func TestRunWritesModelAndModelfile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"model.gguf", "Modelfile"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := gguf.DefaultLlamaConfig()
	cfg.Layers, cfg.Dim, cfg.Heads, cfg.KVHeads, cfg.FFN, cfg.Vocab = 1, 16, 2, 1, 16, 300
	if err := run(dir, cfg, 1, 1); err != nil {
		t.Fatal(err)
	}
	if names := testfs.Names(t, dir); !slices.Equal(names, []string{"Modelfile", "model.gguf"}) {
		t.Errorf("folder holds %q, want Modelfile and model.gguf only", names)
	}
	if fi, err := os.Stat(filepath.Join(dir, "model.gguf")); err != nil || fi.Size() <= int64(len("old")) {
		t.Errorf("model.gguf: %v: want the new model", err)
	}
	mf, err := os.ReadFile(filepath.Join(dir, "Modelfile"))
	if err != nil || !strings.HasPrefix(string(mf), "FROM ./model.gguf") {
		t.Errorf("Modelfile %q, %v: want the new one", mf, err)
	}
}

// A negative thread count is refused: Ollama would take it as unset and
// run on every core, the contention the one-thread default avoids.
func TestRunRefusesNegativeThreads(t *testing.T) {
	dir := t.TempDir()
	cfg := gguf.DefaultLlamaConfig()
	cfg.Layers, cfg.Dim, cfg.Heads, cfg.KVHeads, cfg.FFN, cfg.Vocab = 1, 16, 2, 1, 16, 300
	err := run(dir, cfg, 1, -1)
	if err == nil || !strings.Contains(err.Error(), "-threads") {
		t.Errorf("run with -threads -1: %v, want an error naming -threads", err)
	}
	if names := testfs.Names(t, dir); len(names) != 0 {
		t.Errorf("folder holds %q, want nothing written", names)
	}
}
