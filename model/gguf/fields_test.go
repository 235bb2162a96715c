package gguf

import (
	"bytes"
	"reflect"
	"testing"
)

// Every metadata key WriteLlama writes reads back with the type llama.cpp
// reads it as and the value the configuration asks for, and each tensor's
// offset is where the one before it ends, padded to the alignment (the
// loader refuses any other offset).
func TestWriteLlamaEveryField(t *testing.T) {
	cfg := smallConfig()
	cfg.Context, cfg.RopeTheta, cfg.NormEps, cfg.Name = 2048, 5e5, 1e-6, "tiny-x"
	var buf bytes.Buffer
	if err := WriteLlama(&buf, cfg, 7); err != nil {
		t.Fatal(err)
	}
	p, err := parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tokens, types := Vocab(cfg.Vocab)
	want := map[string]any{
		"general.alignment":                      uint32(32),
		"general.architecture":                   "llama",
		"general.type":                           "model",
		"general.name":                           "tiny-x",
		"general.file_type":                      uint32(1),
		"llama.vocab_size":                       uint32(300),
		"llama.context_length":                   uint32(2048),
		"llama.embedding_length":                 uint32(64),
		"llama.block_count":                      uint32(2),
		"llama.feed_forward_length":              uint32(96),
		"llama.attention.head_count":             uint32(4),
		"llama.attention.head_count_kv":          uint32(2),
		"llama.attention.key_length":             uint32(16),
		"llama.attention.value_length":           uint32(16),
		"llama.rope.dimension_count":             uint32(16),
		"llama.rope.freq_base":                   float32(5e5),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-6),
		"tokenizer.ggml.model":                   "gpt2",
		"tokenizer.ggml.pre":                     "default",
		"tokenizer.ggml.tokens":                  tokens,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.merges":                  []string{},
		"tokenizer.ggml.bos_token_id":            uint32(BOSID),
		"tokenizer.ggml.eos_token_id":            uint32(EOSID),
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.add_eos_token":           false,
		"tokenizer.chat_template":                ChatTemplate,
	}
	if len(p.keys) != len(want) {
		t.Errorf("%d keys %q, want %d", len(p.keys), p.keys, len(want))
	}
	for k, w := range want {
		if got := p.kv[k]; !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %#v (%T), want %#v (%T)", k, got, got, w, w)
		}
	}
	if p.keys[0] != "general.alignment" {
		t.Errorf("first key %q", p.keys[0])
	}
	var next uint64
	for _, ti := range p.tensors {
		if ti.offset != next {
			t.Errorf("%s at offset %d, want %d", ti.name, ti.offset, next)
		}
		next = align(ti.offset + (Tensor{Shape: ti.shape, Type: ti.typ}).Size())
	}
	if got, want := int64(buf.Len()), p.dataStart+int64(next); got != want {
		t.Errorf("file size %d, want %d", got, want)
	}
}
