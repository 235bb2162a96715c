package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
)

// Token ids of the control tokens written by WriteLlama.
const (
	BOSID     = 256 // <|begin_of_text|>
	EOSID     = 257 // <|end_of_text|>
	ImStartID = 258 // <|im_start|>
	ImEndID   = 259 // <|im_end|>

	firstFiller = 260
)

// ChatTemplate is the ChatML Jinja template stored as tokenizer.chat_template.
// It is byte-identical to an entry of Ollama's template index, so Ollama
// auto-detects it as "chatml" on create.
const ChatTemplate = "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}" +
	"{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}" +
	"{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"

// OllamaChatOverhead is the number of prompt tokens Ollama v0.6.5 adds to a
// single user message of n UTF-8 bytes: usage.prompt_tokens == n +
// OllamaChatOverhead. It is BOS (1) + "<|im_start|>user\n" (1+5) +
// "<|im_end|>\n" (1+1) + "<|im_start|>assistant\n" (1+10), with one token
// per byte of ordinary text. Measured against Ollama v0.6.5 (see
// ollama_e2e_test.go).
const OllamaChatOverhead = 20

// LlamaConfig sizes the generated model.
type LlamaConfig struct {
	Name      string  // general.name
	Layers    int     // transformer blocks
	Dim       int     // embedding length
	Heads     int     // attention heads
	KVHeads   int     // key/value heads (grouped-query attention)
	FFN       int     // feed-forward hidden size
	Context   int     // trained context length
	Vocab     int     // vocabulary size, at least 261
	RopeTheta float32 // RoPE frequency base
	NormEps   float32 // RMS norm epsilon
	InitStd   float32 // standard deviation of the random weights
}

// DefaultLlamaConfig returns the default tiny model: about 56M parameters,
// 113 MB as f16.
func DefaultLlamaConfig() LlamaConfig {
	return LlamaConfig{
		Name:      "servesim-tiny",
		Layers:    8,
		Dim:       512,
		Heads:     8,
		KVHeads:   4,
		FFN:       1408,
		Context:   4096,
		Vocab:     32000,
		RopeTheta: 10000,
		NormEps:   1e-5,
		InitStd:   0.02,
	}
}

// Validate reports whether the configuration describes a loadable model.
func (c LlamaConfig) Validate() error {
	switch {
	case c.Layers < 1, c.Dim < 2, c.Heads < 1, c.KVHeads < 1, c.FFN < 1, c.Context < 1:
		return errors.New("gguf: layers, dim, heads, kv heads, ffn and context must be positive")
	case c.Dim%c.Heads != 0:
		return fmt.Errorf("gguf: dim %d not divisible by heads %d", c.Dim, c.Heads)
	case (c.Dim/c.Heads)%2 != 0:
		return fmt.Errorf("gguf: head dim %d must be even for RoPE", c.Dim/c.Heads)
	case c.Heads%c.KVHeads != 0:
		return fmt.Errorf("gguf: heads %d not divisible by kv heads %d", c.Heads, c.KVHeads)
	case c.Vocab <= firstFiller:
		return fmt.Errorf("gguf: vocab %d must exceed %d", c.Vocab, firstFiller)
	case c.Vocab > firstFiller+26+26*26+26*26*26+26*26*26*26:
		return fmt.Errorf("gguf: vocab %d too large for the filler alphabet", c.Vocab)
	case !(c.InitStd > 0) || !(c.NormEps > 0) || !(c.RopeTheta > 0):
		return errors.New("gguf: init std, norm eps and rope theta must be positive")
	}
	return nil
}

// Token types (llama.cpp's llama_token_type).
const (
	tokenNormal  = 1
	tokenControl = 3
)

// Vocab returns the tokens and token types WriteLlama stores for a
// vocabulary of n tokens (see the package documentation).
func Vocab(n int) (tokens []string, types []int32) {
	tokens = make([]string, 0, n)
	types = make([]int32, 0, n)
	for _, r := range byteToUnicode() {
		tokens = append(tokens, string(r))
		types = append(types, tokenNormal)
	}
	for _, s := range []string{"<|begin_of_text|>", "<|end_of_text|>", "<|im_start|>", "<|im_end|>"} {
		tokens = append(tokens, s)
		types = append(types, tokenControl)
	}
	// Filler words: 'Ġ' (the GPT-2 symbol for a space) + 1..4 lowercase
	// letters, in length-then-lexicographic order.
	for length := 1; len(tokens) < n; length++ {
		word := make([]byte, length)
		for i := range word {
			word[i] = 'a'
		}
		for len(tokens) < n {
			tokens = append(tokens, "Ġ"+string(word))
			types = append(types, tokenNormal)
			i := length - 1 // increment word like an odometer
			for i >= 0 && word[i] == 'z' {
				word[i] = 'a'
				i--
			}
			if i < 0 {
				break
			}
			word[i]++
		}
	}
	return tokens, types
}

// byteToUnicode is GPT-2's reversible byte-to-unicode table: printable
// bytes map to themselves, the others to code points from U+0100 up.
func byteToUnicode() [256]rune {
	var m [256]rune
	n := 0
	for b := range 256 {
		if ('!' <= b && b <= '~') || ('¡' <= b && b <= '¬') || ('®' <= b && b <= 'ÿ') {
			m[b] = rune(b)
		} else {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}

const (
	embedConst = 1.0    // value of residual dimension 0 in every embedding
	suppressed = -100.0 // output weight on dimension 0 for never-sampled tokens
)

// LlamaMetadata returns the metadata WriteLlama writes.
func LlamaMetadata(cfg LlamaConfig) []KV {
	tokens, types := Vocab(cfg.Vocab)
	u := func(v int) uint32 { return uint32(v) }
	return []KV{
		{"general.architecture", "llama"},
		{"general.name", cfg.Name},
		{"general.file_type", uint32(1)}, // mostly f16
		{"llama.vocab_size", u(cfg.Vocab)},
		{"llama.context_length", u(cfg.Context)},
		{"llama.embedding_length", u(cfg.Dim)},
		{"llama.block_count", u(cfg.Layers)},
		{"llama.feed_forward_length", u(cfg.FFN)},
		{"llama.attention.head_count", u(cfg.Heads)},
		{"llama.attention.head_count_kv", u(cfg.KVHeads)},
		{"llama.rope.dimension_count", u(cfg.Dim / cfg.Heads)},
		{"llama.rope.freq_base", cfg.RopeTheta},
		{"llama.attention.layer_norm_rms_epsilon", cfg.NormEps},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", "default"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.merges", []string{}},
		{"tokenizer.ggml.bos_token_id", uint32(BOSID)},
		{"tokenizer.ggml.eos_token_id", uint32(EOSID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
		{"tokenizer.chat_template", ChatTemplate},
	}
}

// LlamaTensors returns the tensors WriteLlama writes, in file order. Their
// data is generated lazily and depends only on seed and the tensor name.
func LlamaTensors(cfg LlamaConfig, seed int64) []Tensor {
	d, f, v := uint64(cfg.Dim), uint64(cfg.FFN), uint64(cfg.Vocab)
	kv := uint64(cfg.Dim / cfg.Heads * cfg.KVHeads)
	std := cfg.InitStd

	zeroRow0 := func(row int, vals []float32) { // residual dim 0 is never written
		if row == 0 {
			clear(vals)
		}
	}
	ts := []Tensor{
		f16Tensor("token_embd.weight", []uint64{d, v}, seed, std, func(_ int, vals []float32) {
			vals[0] = embedConst
		}),
	}
	for i := range cfg.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			onesTensor(p+"attn_norm.weight", d),
			f16Tensor(p+"attn_q.weight", []uint64{d, d}, seed, std, nil),
			f16Tensor(p+"attn_k.weight", []uint64{d, kv}, seed, std, nil),
			f16Tensor(p+"attn_v.weight", []uint64{d, kv}, seed, std, nil),
			f16Tensor(p+"attn_output.weight", []uint64{d, d}, seed, std, zeroRow0),
			onesTensor(p+"ffn_norm.weight", d),
			f16Tensor(p+"ffn_gate.weight", []uint64{d, f}, seed, std, nil),
			f16Tensor(p+"ffn_up.weight", []uint64{d, f}, seed, std, nil),
			f16Tensor(p+"ffn_down.weight", []uint64{f, d}, seed, std, zeroRow0),
		)
	}
	ts = append(ts,
		onesTensor("output_norm.weight", d),
		f16Tensor("output.weight", []uint64{d, v}, seed, std, func(row int, vals []float32) {
			if row < firstFiller { // byte and control tokens: never sampled
				clear(vals)
				vals[0] = suppressed
			} else {
				vals[0] = 0
			}
		}),
	)
	return ts
}

// WriteLlama writes a Llama-architecture GGUF model with random weights,
// deterministic for a given seed.
func WriteLlama(w io.Writer, cfg LlamaConfig, seed int64) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	return Write(w, LlamaMetadata(cfg), LlamaTensors(cfg, seed))
}

// f16Tensor is a 2-D f16 tensor of N(0, std²) values; fix, if not nil, may
// edit each row (shape[0] values) before it is written.
func f16Tensor(name string, shape []uint64, seed int64, std float32, fix func(row int, vals []float32)) Tensor {
	return Tensor{Name: name, Shape: shape, Type: TensorF16, Data: func(w io.Writer) error {
		h := fnv.New64a()
		h.Write([]byte(name))
		rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
		vals := make([]float32, shape[0])
		buf := make([]byte, 2*shape[0])
		for row := range int(shape[1]) {
			for i := range vals {
				vals[i] = float32(rng.NormFloat64()) * std
			}
			if fix != nil {
				fix(row, vals)
			}
			for i, x := range vals {
				binary.LittleEndian.PutUint16(buf[2*i:], F16(x))
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}}
}

// onesTensor is a 1-D f32 tensor of ones (RMS norm weights).
func onesTensor(name string, n uint64) Tensor {
	return Tensor{Name: name, Shape: []uint64{n}, Type: TensorF32, Data: func(w io.Writer) error {
		buf := make([]byte, 4*n)
		for i := range n {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(1))
		}
		_, err := w.Write(buf)
		return err
	}}
}
