package model

import (
	"fmt"
	"strings"
)

// Precision is a numeric storage format for weights, KV cache or compute.
type Precision string

// The supported precisions.
const (
	FP32 Precision = "fp32"
	FP16 Precision = "fp16"
	BF16 Precision = "bf16"
	FP8  Precision = "fp8"
	INT8 Precision = "int8"
	INT4 Precision = "int4"
)

// Precisions lists the supported precisions, widest first.
func Precisions() []Precision {
	return []Precision{FP32, FP16, BF16, FP8, INT8, INT4}
}

var precisionAliases = map[string]Precision{
	"fp32": FP32, "float32": FP32, "f32": FP32, "float": FP32,
	"fp16": FP16, "float16": FP16, "f16": FP16, "half": FP16,
	"bf16": BF16, "bfloat16": BF16,
	"fp8": FP8, "float8": FP8, "fp8_e4m3": FP8, "fp8_e5m2": FP8,
	"int8": INT8, "i8": INT8,
	"int4": INT4, "i4": INT4,
}

// ParsePrecision parses a precision name, case-insensitively. Common aliases
// ("float16", "bfloat16", "half", "fp8_e4m3", ...) are accepted. The error
// lists the valid values.
func ParsePrecision(s string) (Precision, error) {
	if p, ok := precisionAliases[strings.ToLower(strings.TrimSpace(s))]; ok {
		return p, nil
	}
	return "", fmt.Errorf("model: unknown precision %q (valid: %s)", s, validPrecisions())
}

func validPrecisions() string {
	names := make([]string, 0, 6)
	for _, p := range Precisions() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// Valid reports whether p is one of the supported precisions.
func (p Precision) Valid() bool { return p.Bytes() > 0 }

// Bytes is the storage size of one value: 4, 2, 2, 1, 1 and 0.5 for fp32,
// fp16, bf16, fp8, int8 and int4. It is 0 for an unknown precision.
// Quantization scales and zero points are not counted here; weight sizes
// add them (Arch.WeightBytes).
func (p Precision) Bytes() float64 {
	switch p {
	case FP32:
		return 4
	case FP16, BF16:
		return 2
	case FP8, INT8:
		return 1
	case INT4:
		return 0.5
	}
	return 0
}

// String returns the canonical name.
func (p Precision) String() string { return string(p) }

// UnmarshalText implements encoding.TextUnmarshaler (used by TOML and JSON
// decoders), with the same rules as ParsePrecision.
func (p *Precision) UnmarshalText(b []byte) error {
	v, err := ParsePrecision(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (p Precision) MarshalText() ([]byte, error) { return []byte(p), nil }
