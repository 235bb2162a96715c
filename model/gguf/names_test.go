package gguf

import (
	"io"
	"strings"
	"testing"
)

// llama.cpp refuses a file with a key or a tensor name twice, or a tensor
// name of 64 bytes or more (GGML_MAX_NAME): Write does not write one.
func TestWriteRefusesUnloadableNames(t *testing.T) {
	ones := func(name string) Tensor { return onesTensor(name, 4) }
	for _, tc := range []struct {
		name    string
		kvs     []KV
		tensors []Tensor
		want    string
	}{
		{"duplicate key", []KV{{"general.name", "a"}, {"general.name", "b"}}, nil, `"general.name"`},
		{"duplicate tensor", nil, []Tensor{ones("x.weight"), ones("x.weight")}, `"x.weight"`},
		{"long tensor name", nil, []Tensor{ones(strings.Repeat("n", 64))}, strings.Repeat("n", 64)},
	} {
		if err := Write(io.Discard, tc.kvs, tc.tensors); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.want)
		}
	}
	if err := Write(io.Discard, []KV{{"general.name", "a"}}, []Tensor{ones(strings.Repeat("n", 63))}); err != nil {
		t.Errorf("63-byte tensor name: %v", err)
	}
}
