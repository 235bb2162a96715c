package gguf

import (
	"bytes"
	"io"
	"math"
	"math/big"
	"testing"
)

// FuzzWriteRoundTrip: a key, a string value and a 2-D tensor either are
// refused, or read back (with the test reader) as written: the key and
// value, the tensor's name, shape, type and data at an aligned offset, in
// a file of FileSize bytes. A shape too large to write is checked through
// FileSize alone, against the size computed without wrapping. Crashers
// found are kept in testdata/fuzz/FuzzWriteRoundTrip.
func FuzzWriteRoundTrip(f *testing.F) {
	f.Add("general.name", "tiny", "blk.0.attn_q.weight", uint64(5), uint64(3), true)
	f.Add("", "", "", uint64(1), uint64(1), false)
	f.Add("k", "ĠĊ\x00\xff", "x", uint64(0), uint64(4), false)
	f.Add("k", "v", "x", uint64(1<<62), uint64(4), true)
	f.Add("k", "v", "x", uint64(1<<31), uint64(1<<30), false)
	f.Fuzz(func(t *testing.T, key, value, name string, d0, d1 uint64, f16 bool) {
		typ := TensorF32
		if f16 {
			typ = TensorF16
		}
		shape := []uint64{d0, d1}
		var b byte = 7
		tensor := Tensor{Name: name, Shape: shape, Type: typ, Data: func(w io.Writer) error {
			_, err := w.Write(bytes.Repeat([]byte{b}, int(d0*d1)*typ.ElemSize()))
			return err
		}}
		kvs := []KV{{key, value}}
		size, err := FileSize(kvs, []Tensor{tensor})
		want := new(big.Int).Mul(new(big.Int).SetUint64(d0), new(big.Int).SetUint64(d1))
		want.Mul(want, big.NewInt(int64(typ.ElemSize())))
		if fits := d0 > 0 && d1 > 0 && want.Cmp(big.NewInt(math.MaxInt64-Alignment)) <= 0; fits && err == nil &&
			size < want.Uint64() || !fits && err == nil {
			t.Fatalf("FileSize with shape %v of %v bytes = %d, %v", shape, want, size, err)
		}
		if err != nil || want.Cmp(big.NewInt(1<<16)) > 0 {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, kvs, []Tensor{tensor}); err != nil {
			t.Fatalf("FileSize = %d but Write: %v", size, err)
		}
		if uint64(buf.Len()) != size {
			t.Fatalf("wrote %d bytes, FileSize %d", buf.Len(), size)
		}
		p, err := parse(buf.Bytes())
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if key != "general.alignment" && p.kv[key] != value {
			t.Fatalf("%q = %#v, want %q", key, p.kv[key], value)
		}
		ti := p.tensors[0]
		if ti.name != name || len(ti.shape) != 2 || ti.shape[0] != d0 || ti.shape[1] != d1 || ti.typ != typ || ti.offset != 0 {
			t.Fatalf("tensor %+v, want %q %v type %d at 0", ti, name, shape, typ)
		}
		data := buf.Bytes()[p.dataStart:]
		if p.dataStart%Alignment != 0 || !bytes.Equal(data[:want.Int64()], bytes.Repeat([]byte{b}, int(want.Int64()))) {
			t.Fatalf("tensor data at %d is not the written data", p.dataStart)
		}
	})
}
