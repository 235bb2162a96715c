package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
)

// Version is the GGUF format version this package writes.
const Version = 3

// Alignment is the tensor data alignment in bytes; it is also written as the
// general.alignment metadata value.
const Alignment = 32

// MaxNameLen bounds tensor names: llama.cpp (GGML_MAX_NAME) refuses a
// name of this many bytes or more.
const MaxNameLen = 64

// Magic is the 4-byte file signature.
const Magic = "GGUF"

// ValueType is the type tag of a metadata value.
type ValueType uint32

// Metadata value types.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// TensorType is a ggml tensor element type. Only the two unquantized types
// this package writes are defined.
type TensorType uint32

// Tensor element types.
const (
	TensorF32 TensorType = 0
	TensorF16 TensorType = 1
)

// ElemSize returns the size in bytes of one element.
func (t TensorType) ElemSize() int {
	switch t {
	case TensorF32:
		return 4
	case TensorF16:
		return 2
	}
	return 0
}

// KV is one metadata key/value pair. Value must be one of uint8, int8,
// uint16, int16, uint32, int32, float32, bool, string, uint64, int64,
// float64, or a slice of one of those.
type KV struct {
	Key   string
	Value any
}

// Tensor describes one tensor. Shape is in ggml order (Shape[0] is the
// contiguous dimension). Data must write exactly Size() bytes of
// little-endian elements.
type Tensor struct {
	Name  string
	Shape []uint64
	Type  TensorType
	Data  func(w io.Writer) error
}

// Elems returns the number of elements.
func (t Tensor) Elems() uint64 {
	n := uint64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Size returns the data size in bytes.
func (t Tensor) Size() uint64 { return t.Elems() * uint64(t.Type.ElemSize()) }

// Write writes a complete GGUF v3 file. The general.alignment key is added
// (with value [Alignment]) unless kvs already contain it. A key or tensor
// name given twice, a tensor name of [MaxNameLen] bytes or more, and a
// shape with a zero dimension or too many bytes for a file offset are
// errors (llama.cpp refuses such files), reported before anything is
// written.
func Write(w io.Writer, kvs []KV, tensors []Tensor) error {
	kvs, offsets, _, err := check(kvs, tensors)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	if err := writeHeader(cw, kvs, tensors, offsets); err != nil {
		return err
	}
	e := &encoder{w: cw}
	for _, t := range tensors {
		start := cw.n
		if err := t.Data(cw); err != nil {
			return fmt.Errorf("gguf: tensor %q: %w", t.Name, err)
		}
		if got := uint64(cw.n - start); got != t.Size() {
			return fmt.Errorf("gguf: tensor %q: wrote %d bytes, want %d", t.Name, got, t.Size())
		}
		e.pad(cw.n)
		if e.err != nil {
			return e.err
		}
	}
	return bw.Flush()
}

// FileSize returns the size in bytes of the file Write writes, or the error
// it refuses kvs and tensors with, without generating any tensor's data.
func FileSize(kvs []KV, tensors []Tensor) (uint64, error) {
	kvs, offsets, dataSize, err := check(kvs, tensors)
	if err != nil {
		return 0, err
	}
	cw := &countWriter{w: io.Discard}
	if err := writeHeader(cw, kvs, tensors, offsets); err != nil {
		return 0, err
	}
	return uint64(cw.n) + dataSize, nil
}

// check refuses what llama.cpp would not load (see [Write]) and returns
// the metadata to write, with general.alignment, and the tensors' data
// offsets and total data size.
func check(kvs []KV, tensors []Tensor) (_ []KV, offsets []uint64, dataSize uint64, _ error) {
	hasAlign := false
	keys := make(map[string]bool, len(kvs))
	for _, kv := range kvs {
		if keys[kv.Key] {
			return nil, nil, 0, fmt.Errorf("gguf: key %q given twice", kv.Key)
		}
		keys[kv.Key] = true
		if kv.Key == "general.alignment" {
			if v, ok := kv.Value.(uint32); !ok || v != Alignment {
				return nil, nil, 0, fmt.Errorf("gguf: general.alignment must be uint32(%d)", Alignment)
			}
			hasAlign = true
		}
	}
	if !hasAlign {
		kvs = append([]KV{{"general.alignment", uint32(Alignment)}}, kvs...)
	}
	names := make(map[string]bool, len(tensors))
	for _, t := range tensors {
		if names[t.Name] {
			return nil, nil, 0, fmt.Errorf("gguf: tensor %q given twice", t.Name)
		}
		names[t.Name] = true
		if len(t.Name) >= MaxNameLen {
			return nil, nil, 0, fmt.Errorf("gguf: tensor %q: name of %d bytes, want fewer than %d", t.Name, len(t.Name), MaxNameLen)
		}
		if t.Type.ElemSize() == 0 {
			return nil, nil, 0, fmt.Errorf("gguf: tensor %q: unsupported type %d", t.Name, t.Type)
		}
		if len(t.Shape) == 0 || len(t.Shape) > 4 {
			return nil, nil, 0, fmt.Errorf("gguf: tensor %q: %d dims, want 1-4", t.Name, len(t.Shape))
		}
	}
	offsets, dataSize, err := dataOffsets(tensors)
	return kvs, offsets, dataSize, err
}

// writeHeader writes everything before the tensor data, padded to the
// alignment.
func writeHeader(cw *countWriter, kvs []KV, tensors []Tensor, offsets []uint64) error {
	e := &encoder{w: cw}
	e.raw([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		if err := e.value(kv.Value); err != nil {
			return fmt.Errorf("gguf: key %q: %w", kv.Key, err)
		}
	}
	for i, t := range tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Shape)))
		for _, d := range t.Shape {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(offsets[i])
	}
	e.pad(cw.n)
	return e.err
}

// dataOffsets returns each tensor's offset in the data section and the
// section's size. It refuses a zero dimension (llama.cpp's loader divides
// by dimensions) and a tensor ending past the largest file offset, whose
// Size would wrap round.
func dataOffsets(tensors []Tensor) ([]uint64, uint64, error) {
	offsets := make([]uint64, len(tensors))
	var end uint64
	for i, t := range tensors {
		size, hi := uint64(t.Type.ElemSize()), uint64(0)
		for j, d := range t.Shape {
			if d == 0 {
				return nil, 0, fmt.Errorf("gguf: tensor %q: dimension %d is 0, want at least 1", t.Name, j)
			}
			if hi == 0 {
				hi, size = bits.Mul64(size, d)
			}
		}
		if hi != 0 || size > math.MaxInt64-Alignment || end+align(size) > math.MaxInt64 {
			return nil, 0, fmt.Errorf("gguf: tensor %q: shape %v ends past %d bytes of data", t.Name, t.Shape, uint64(math.MaxInt64))
		}
		offsets[i] = end
		end += align(size)
	}
	return offsets, end, nil
}

func align(n uint64) uint64 { return (n + Alignment - 1) / Alignment * Alignment }

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// encoder writes little-endian values and remembers the first error.
type encoder struct {
	w   io.Writer
	err error
	buf [8]byte
}

func (e *encoder) raw(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

func (e *encoder) u8(v uint8)   { e.raw([]byte{v}) }
func (e *encoder) u16(v uint16) { binary.LittleEndian.PutUint16(e.buf[:], v); e.raw(e.buf[:2]) }
func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:], v); e.raw(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:], v); e.raw(e.buf[:8]) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.raw([]byte(s)) }

// pad writes zero bytes up to the next multiple of Alignment, given the
// current absolute position.
func (e *encoder) pad(pos int64) {
	if n := align(uint64(pos)) - uint64(pos); n > 0 {
		e.raw(make([]byte, n))
	}
}

// value writes a type tag and a value.
func (e *encoder) value(v any) error {
	switch v := v.(type) {
	case []uint8:
		return array(e, TypeUint8, v, e.u8)
	case []int8:
		return array(e, TypeInt8, v, func(x int8) { e.u8(uint8(x)) })
	case []uint16:
		return array(e, TypeUint16, v, e.u16)
	case []int16:
		return array(e, TypeInt16, v, func(x int16) { e.u16(uint16(x)) })
	case []uint32:
		return array(e, TypeUint32, v, e.u32)
	case []int32:
		return array(e, TypeInt32, v, func(x int32) { e.u32(uint32(x)) })
	case []float32:
		return array(e, TypeFloat32, v, func(x float32) { e.u32(math.Float32bits(x)) })
	case []bool:
		return array(e, TypeBool, v, func(x bool) { e.u8(b2u(x)) })
	case []string:
		return array(e, TypeString, v, e.str)
	case []uint64:
		return array(e, TypeUint64, v, e.u64)
	case []int64:
		return array(e, TypeInt64, v, func(x int64) { e.u64(uint64(x)) })
	case []float64:
		return array(e, TypeFloat64, v, func(x float64) { e.u64(math.Float64bits(x)) })
	}
	t, err := scalarType(v)
	if err != nil {
		return err
	}
	e.u32(uint32(t))
	e.scalar(v)
	return e.err
}

func array[T any](e *encoder, t ValueType, vs []T, put func(T)) error {
	e.u32(uint32(TypeArray))
	e.u32(uint32(t))
	e.u64(uint64(len(vs)))
	for _, v := range vs {
		put(v)
	}
	return e.err
}

func scalarType(v any) (ValueType, error) {
	switch v.(type) {
	case uint8:
		return TypeUint8, nil
	case int8:
		return TypeInt8, nil
	case uint16:
		return TypeUint16, nil
	case int16:
		return TypeInt16, nil
	case uint32:
		return TypeUint32, nil
	case int32:
		return TypeInt32, nil
	case float32:
		return TypeFloat32, nil
	case bool:
		return TypeBool, nil
	case string:
		return TypeString, nil
	case uint64:
		return TypeUint64, nil
	case int64:
		return TypeInt64, nil
	case float64:
		return TypeFloat64, nil
	}
	return 0, fmt.Errorf("unsupported value type %T", v)
}

func (e *encoder) scalar(v any) {
	switch v := v.(type) {
	case uint8:
		e.u8(v)
	case int8:
		e.u8(uint8(v))
	case uint16:
		e.u16(v)
	case int16:
		e.u16(uint16(v))
	case uint32:
		e.u32(v)
	case int32:
		e.u32(uint32(v))
	case float32:
		e.u32(math.Float32bits(v))
	case bool:
		e.u8(b2u(v))
	case string:
		e.str(v)
	case uint64:
		e.u64(v)
	case int64:
		e.u64(uint64(v))
	case float64:
		e.u64(math.Float64bits(v))
	default:
		e.err = errors.New("unreachable")
	}
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// F16 converts a float32 to IEEE 754 half precision bits, rounding to
// nearest even; out-of-range values become ±Inf.
func F16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff { // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 { // f16 subnormal (or zero): value = m * 2^-24
		if e < -10 {
			return sign
		}
		m := mant | 0x800000
		s := uint32(14 - e)
		h := m >> s
		rem := m & (1<<s - 1)
		half := uint32(1) << (s - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++ // may carry into the smallest normal, which is correct
		}
		return sign | uint16(h)
	}
	h := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent (up to Inf), which is correct
	}
	return sign | uint16(h)
}
