package gguf

import (
	"io"
	"strings"
	"testing"
)

// A shape llama.cpp cannot load is refused before anything is written: a
// zero dimension (its loader divides by each one), or more bytes than a
// file offset holds, which Size would wrap round to a small number and
// the file would claim a tensor it does not contain.
func TestWriteRefusesUnloadableShapes(t *testing.T) {
	none := func(io.Writer) error { return nil }
	for _, tc := range []struct {
		name  string
		shape []uint64
		typ   TensorType
		want  string
	}{
		{"zero dim", []uint64{4, 0}, TensorF32, "dimension 1 is 0"},
		{"wraps to 0 bytes", []uint64{1 << 62, 4}, TensorF16, "bytes"},
		{"wraps past uint64", []uint64{1 << 32, 1 << 32}, TensorF16, "bytes"},
		{"past int64", []uint64{1 << 31, 1 << 31}, TensorF16, "bytes"},
	} {
		var w countWriter
		w.w = io.Discard
		err := Write(&w, nil, []Tensor{{Name: "x.weight", Shape: tc.shape, Type: tc.typ, Data: none}})
		if err == nil || !strings.Contains(err.Error(), `"x.weight"`) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want one naming the tensor and %q", tc.name, tc.shape, err, tc.want)
		}
		if w.n != 0 {
			t.Errorf("%s: wrote %d bytes before refusing", tc.name, w.n)
		}
	}
}

// Tensors each small enough but together past a file offset's range are
// refused too: the later offsets would wrap.
func TestWriteRefusesOffsetsPastInt64(t *testing.T) {
	none := func(io.Writer) error { return nil }
	quarter := []uint64{1 << 31, 1 << 30} // 2^62 bytes of f16
	ts := []Tensor{
		{Name: "a", Shape: quarter, Type: TensorF16, Data: none},
		{Name: "b", Shape: quarter, Type: TensorF16, Data: none},
	}
	if err := Write(io.Discard, nil, ts); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("error %v, want one naming tensor \"b\"", err)
	}
}

// FileSize tells the size Write gives the file without writing it, so a
// caller can check for room first.
func TestFileSizeIsTheWrittenSize(t *testing.T) {
	cfg := smallConfig()
	var w countWriter
	w.w = io.Discard
	if err := WriteLlama(&w, cfg, 1); err != nil {
		t.Fatal(err)
	}
	got, err := FileSize(LlamaMetadata(cfg), LlamaTensors(cfg, 1))
	if err != nil || got != uint64(w.n) {
		t.Errorf("FileSize = %d, %v; want %d", got, err, w.n)
	}
	if _, err := FileSize(nil, []Tensor{{Name: "x", Shape: []uint64{0}, Type: TensorF32}}); err == nil {
		t.Error("FileSize accepted a zero dimension")
	}
}
