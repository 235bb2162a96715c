// Command servesim-testmodel writes a tiny random-weight Llama model for
// end-to-end tests against a real inference engine:
//
//	servesim-testmodel -out DIR [-layers 8 -dim 512 -heads 8 -kv-heads 4 -ffn 1408 -ctx 4096 -vocab 32000 -seed 1]
//
// It writes DIR/model.gguf (see package model/gguf) and DIR/Modelfile for
// `ollama create`, and refuses a model larger than the free space in DIR.
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/model/gguf"
)

// modelfile pins the ChatML template and its stop strings explicitly (Ollama
// v0.6.5 auto-detects the same ones from tokenizer.chat_template, as
// "chatml"), the per-sequence context, default sampling settings without a
// repeat penalty, and a seed, so prompt token counts and outputs do not
// depend on Ollama's defaults. Requests may still override the sampling
// options; the model itself never stops before max_tokens (see package gguf).
const modelfile = `FROM ./model.gguf
TEMPLATE """{{- range .Messages }}<|im_start|>{{ .Role }}
{{ .Content }}<|im_end|>
{{ end }}<|im_start|>assistant
"""
PARAMETER stop <|im_start|>
PARAMETER stop <|im_end|>
PARAMETER num_ctx %d
PARAMETER temperature 0.8
PARAMETER top_k 40
PARAMETER top_p 0.9
PARAMETER repeat_penalty 1
PARAMETER seed %d
PARAMETER num_thread %d
`

func main() {
	cfg := gguf.DefaultLlamaConfig()
	out := flag.String("out", "", "output directory (required)")
	flag.StringVar(&cfg.Name, "name", cfg.Name, "model name (general.name)")
	flag.IntVar(&cfg.Layers, "layers", cfg.Layers, "transformer blocks")
	flag.IntVar(&cfg.Dim, "dim", cfg.Dim, "embedding length")
	flag.IntVar(&cfg.Heads, "heads", cfg.Heads, "attention heads")
	flag.IntVar(&cfg.KVHeads, "kv-heads", cfg.KVHeads, "key/value heads")
	flag.IntVar(&cfg.FFN, "ffn", cfg.FFN, "feed-forward hidden size")
	flag.IntVar(&cfg.Context, "ctx", cfg.Context, "context length (also the Modelfile num_ctx)")
	flag.IntVar(&cfg.Vocab, "vocab", cfg.Vocab, "vocabulary size")
	seed := flag.Int64("seed", 1, "weight seed")
	// One engine thread leaves a core to the load generator on a 2-core
	// machine, so client-side schedule lag measures the client, not contention.
	threads := flag.Int("threads", 1, "engine CPU threads (Modelfile num_thread; 0: the engine decides)")
	flag.Parse()

	if err := run(*out, cfg, *seed, *threads); err != nil {
		fmt.Fprintln(os.Stderr, "servesim-testmodel:", err)
		os.Exit(1)
	}
}

// pathWriter writes to an output's temporary file, its errors naming the
// output's path rather than the temporary file, which is removed on failure.
type pathWriter struct {
	w    io.Writer
	path string
}

func (p pathWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if pe, ok := err.(*fs.PathError); ok {
		err = fmt.Errorf("%s: %w", p.path, pe.Err)
	}
	return n, err
}

func run(dir string, cfg gguf.LlamaConfig, seed int64, threads int) error {
	if dir == "" {
		return fmt.Errorf("-out is required")
	}
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	// Ollama takes any num_thread below 1 as unset and runs on every core:
	// 0 asks for that, a negative count is a mistake.
	if threads < 0 {
		return fmt.Errorf("-threads %d: want 0 (the engine decides) or more", threads)
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := checkRoom(dir, cfg, seed); err != nil {
		return err
	}
	// A partial model must never look valid: it appears whole or not at all.
	path := filepath.Join(dir, "model.gguf")
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	if err := gguf.WriteLlama(pathWriter{f, path}, cfg, seed); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	mf := fmt.Sprintf(modelfile, cfg.Context, seed, threads)
	return atomicfile.WriteFile(filepath.Join(dir, "Modelfile"), []byte(mf))
}

// checkRoom refuses a model larger than the free space in dir: writing it
// would take long and fill the disk before failing.
func checkRoom(dir string, cfg gguf.LlamaConfig, seed int64) error {
	size, err := gguf.FileSize(gguf.LlamaMetadata(cfg), gguf.LlamaTensors(cfg, seed))
	if err != nil {
		return err
	}
	if free, ok := freeBytes(dir); ok && size > free {
		return fmt.Errorf("%s: model.gguf of %s needs more than the %s free there: lower -layers, -dim, -ffn or -vocab", dir, gib(size), gib(free))
	}
	return nil
}

func gib(n uint64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }
