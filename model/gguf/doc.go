// Package gguf writes GGUF model files: a small, dependency-free writer for
// the GGUF container (version 3, little-endian) plus [WriteLlama], which emits
// a tiny Llama-architecture model with random weights that real inference
// engines (llama.cpp, Ollama) load and run.
//
// # File layout (GGUF v3)
//
//	magic "GGUF" | version uint32 = 3 | tensor count uint64 | KV count uint64
//	KV pairs:     key (string) | value type uint32 | value
//	tensor infos: name (string) | n_dims uint32 | dims uint64... | ggml type uint32 | offset uint64
//	padding to general.alignment (32 bytes)
//	tensor data, every tensor starting at a multiple of the alignment
//
// Strings are a uint64 byte length followed by the bytes (no terminator).
// Arrays are an element type uint32, a uint64 count, then the elements.
// Tensor dims are in ggml order: dims[0] is the contiguous (row) length, so a
// PyTorch weight of shape [out, in] is written with dims [in, out].
//
// # The generated model
//
// WriteLlama writes f16 weight matrices drawn from N(0, InitStd²) and f32
// norm weights equal to 1, deterministic for a given seed. Its tokenizer is
// written by this package, not copied from any real model:
//
//   - tokens 0-255: the GPT-2 byte-to-unicode symbols, so any input text
//     tokenizes to one token per UTF-8 byte (the merges list is empty);
//   - tokens 256-259: control tokens <|begin_of_text|> (BOS),
//     <|end_of_text|> (EOS), <|im_start|> and <|im_end|>;
//   - the rest: filler "words" — a space followed by 1-4 lowercase letters
//     (" a", " ab", ...) — padding the vocabulary to its full size.
//
// The filler tokens exist because a random model samples uniformly-ish from
// the whole vocabulary: if the vocabulary were only byte tokens, most samples
// would be bytes that do not form valid UTF-8, which Ollama silently drops,
// so the streamed text would not match the token count. The fillers also give
// the output projection a realistic size (vocab 32000).
//
// Because the merges list is empty, no filler is ever produced by
// tokenization: a chat prompt costs exactly its UTF-8 bytes plus the fixed
// template overhead (BOS + ChatML framing).
//
// # No end-of-sequence
//
// A random model could sample EOS at any step and end a generation early,
// which makes completion token counts nondeterministic. WriteLlama prevents
// that through the weights: element 0 of every token embedding is a constant
// (1.0), and the rows of attn_output and ffn_down that write residual
// dimension 0 are zero, so the final hidden state always has a strictly
// positive component 0 after RMS norm. The output row of every control token
// and every byte token is (-100, 0, 0, ...), making their logits roughly -100
// or lower, while all other output rows have a zero component 0. So the model
// only ever samples filler words, never stops on its own, and each generated
// token decodes to printable ASCII; generation ends exactly at max_tokens.
package gguf
