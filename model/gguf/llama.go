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
	// maxVocab is the largest vocabulary: the byte and control tokens
	// plus every filler word of 1-4 letters.
	maxVocab = firstFiller + 26 + 26*26 + 26*26*26 + 26*26*26*26
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

// ChatMessage is one chat message, for [ChatPromptTokens].
type ChatMessage struct{ Role, Content string }

// ChatPromptTokens returns the prompt token count Ollama v0.6.5 reports for
// a chat with this model: BOS, then per message "<|im_start|>" + role + "\n"
// + content + "<|im_end|>\n" (role, newlines and content at one token per
// byte), then "<|im_start|>assistant\n". It assumes no content contains a
// control-token string such as "<|im_end|>".
func ChatPromptTokens(msgs []ChatMessage) int {
	n := 1 + 1 + len("assistant\n")
	for _, m := range msgs {
		n += 1 + len(m.Role) + 1 + len(m.Content) + 1 + 1
	}
	return n
}

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
	InitStd   float32 // standard deviation of the random weight matrices (embeddings use 1)
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
	// The metadata stores every size as a uint32.
	for _, size := range []struct {
		name string
		v    int
	}{{"layers", c.Layers}, {"dim", c.Dim}, {"heads", c.Heads}, {"kv heads", c.KVHeads}, {"ffn", c.FFN}, {"context", c.Context}} {
		if size.v < 1 || int64(size.v) > math.MaxUint32 {
			return fmt.Errorf("gguf: %s %d: want 1 to %d", size.name, size.v, uint32(math.MaxUint32))
		}
	}
	switch {
	case c.Dim%c.Heads != 0:
		return fmt.Errorf("gguf: dim %d not divisible by heads %d", c.Dim, c.Heads)
	case (c.Dim/c.Heads)%2 != 0:
		return fmt.Errorf("gguf: head dim %d must be even for RoPE", c.Dim/c.Heads)
	case c.Heads%c.KVHeads != 0:
		return fmt.Errorf("gguf: heads %d not divisible by kv heads %d", c.Heads, c.KVHeads)
	case c.Vocab <= firstFiller:
		return fmt.Errorf("gguf: vocab %d must exceed %d", c.Vocab, firstFiller)
	case c.Vocab > maxVocab:
		return fmt.Errorf("gguf: vocab %d too large for the filler words: want at most %d", c.Vocab, maxVocab)
	case !positiveFinite(c.InitStd) || !positiveFinite(c.NormEps) || !positiveFinite(c.RopeTheta):
		return errors.New("gguf: init std, norm eps and rope theta must be positive and finite")
	}
	return nil
}

// positiveFinite is false for zero, negative, NaN and infinite values, none
// of which gives weights or metadata an engine can run.
func positiveFinite(x float32) bool { return x > 0 && x <= math.MaxFloat32 }

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
	embedStd   = 1.0    // std of token embeddings (residual stream scale ~1)
	embedConst = 1.0    // value of residual dimension 0 in every embedding
	suppressed = -100.0 // output weight on dimension 0 for never-sampled tokens
	antiRepeat = 0.02   // output row t -= antiRepeat * embedding t (no immediate repeats)
)

// LlamaMetadata returns the metadata WriteLlama writes.
func LlamaMetadata(cfg LlamaConfig) []KV {
	tokens, types := Vocab(cfg.Vocab)
	u := func(v int) uint32 { return uint32(v) }
	return []KV{
		{"general.architecture", "llama"},
		{"general.type", "model"},
		{"general.name", cfg.Name},
		{"general.file_type", uint32(1)}, // mostly f16
		{"llama.vocab_size", u(cfg.Vocab)},
		{"llama.context_length", u(cfg.Context)},
		{"llama.embedding_length", u(cfg.Dim)},
		{"llama.block_count", u(cfg.Layers)},
		{"llama.feed_forward_length", u(cfg.FFN)},
		{"llama.attention.head_count", u(cfg.Heads)},
		{"llama.attention.head_count_kv", u(cfg.KVHeads)},
		{"llama.attention.key_length", u(cfg.Dim / cfg.Heads)},
		{"llama.attention.value_length", u(cfg.Dim / cfg.Heads)},
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

	matrix := func(name string, shape []uint64, fix func(row int, vals []float32)) Tensor {
		return f16Tensor(name, shape, func() rowFiller {
			next := normalRows(name, seed, std)
			return func(row int, vals []float32) {
				next(vals)
				if fix != nil {
					fix(row, vals)
				}
			}
		})
	}
	zeroRow0 := func(row int, vals []float32) { // residual dim 0 is never written
		if row == 0 {
			clear(vals)
		}
	}
	ts := []Tensor{
		f16Tensor("token_embd.weight", []uint64{d, v}, func() rowFiller {
			next := normalRows("token_embd.weight", seed, embedStd)
			return func(_ int, vals []float32) {
				next(vals)
				vals[0] = embedConst
			}
		}),
	}
	for i := range cfg.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			onesTensor(p+"attn_norm.weight", d),
			matrix(p+"attn_q.weight", []uint64{d, d}, nil),
			matrix(p+"attn_k.weight", []uint64{d, kv}, nil),
			matrix(p+"attn_v.weight", []uint64{d, kv}, nil),
			matrix(p+"attn_output.weight", []uint64{d, d}, zeroRow0),
			onesTensor(p+"ffn_norm.weight", d),
			matrix(p+"ffn_gate.weight", []uint64{d, f}, nil),
			matrix(p+"ffn_up.weight", []uint64{d, f}, nil),
			matrix(p+"ffn_down.weight", []uint64{f, d}, zeroRow0),
		)
	}
	// The output rows are random, minus a multiple of the token's own
	// embedding (regenerated row by row from the same stream), so the
	// current token scores far below the rest.
	ts = append(ts,
		onesTensor("output_norm.weight", d),
		f16Tensor("output.weight", []uint64{d, v}, func() rowFiller {
			next := normalRows("output.weight", seed, std)
			nextEmbd := normalRows("token_embd.weight", seed, embedStd)
			emb := make([]float32, d)
			return func(row int, vals []float32) {
				next(vals)
				nextEmbd(emb)
				if row < firstFiller { // byte and control tokens: never sampled
					clear(vals)
					vals[0] = suppressed
					return
				}
				for i := range vals {
					vals[i] -= antiRepeat * emb[i]
				}
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

// normalRows returns a function that fills a row with N(0, std²) values
// from a random stream determined by seed and name.
func normalRows(name string, seed int64, std float32) func(vals []float32) {
	h := fnv.New64a()
	h.Write([]byte(name))
	rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	return func(vals []float32) {
		for i := range vals {
			vals[i] = float32(rng.NormFloat64()) * std
		}
	}
}

// rowFiller fills row number row of a matrix; rows are filled in order.
type rowFiller func(row int, vals []float32)

// f16Tensor is a 2-D f16 tensor whose rows (shape[0] values each) are
// produced in order by a fresh filler from newFill each time the data is
// written, so writing twice gives the same bytes.
func f16Tensor(name string, shape []uint64, newFill func() rowFiller) Tensor {
	return Tensor{Name: name, Shape: shape, Type: TensorF16, Data: func(w io.Writer) error {
		fill := newFill()
		vals := make([]float32, shape[0])
		buf := make([]byte, 2*shape[0])
		for row := range int(shape[1]) {
			fill(row, vals)
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
