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
// WriteLlama writes f16 weight matrices drawn from N(0, InitStd²) (default
// 0.02), f16 token embeddings drawn from N(0, 1) and f32 norm weights equal
// to 1, deterministic for a given seed. Its tokenizer is written by this
// package, not copied from any real model:
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
// # Generation always runs to max_tokens
//
// A random model could sample EOS at any step and end a generation early,
// which makes completion token counts nondeterministic. WriteLlama prevents
// that through the weights (Ollama v0.6.5 has no ignore_eos or logit_bias):
// element 0 of every token embedding is a constant (1.0), and the rows of
// attn_output and ffn_down that write residual dimension 0 are zero, so the
// final hidden state always has a strictly positive component 0 after RMS
// norm. The output row of every control token and every byte token is
// (-100, 0, 0, ...), making their logits about -100/rms(x) (≈ -80), while
// ordinary logits have a standard deviation below 1 and all other output
// rows have a zero component 0. So the model only ever samples filler words,
// never stops on its own, and each generated token decodes to printable
// ASCII.
//
// Ollama also aborts a generation — with no finish_reason and no usage —
// after 31 identical consecutive tokens, which greedy decoding (temperature
// 0) of a random model quickly hits. So every filler's output row also has
// 0.02 × its own input embedding subtracted: the token just fed in scores
// about 8 below the rest and is never chosen again immediately.
//
// Together this makes usage.completion_tokens equal max_tokens (finish_reason
// "length") at any temperature.
package gguf
