package model

import (
	"strings"
	"testing"
)

func TestParsePrecision(t *testing.T) {
	for in, want := range map[string]Precision{
		"fp32": FP32, "FP16": FP16, " bf16 ": BF16, "bfloat16": BF16, "float16": FP16,
		"half": FP16, "fp8": FP8, "fp8_e4m3": FP8, "int8": INT8, "INT4": INT4,
	} {
		got, err := ParsePrecision(in)
		if err != nil || got != want {
			t.Errorf("ParsePrecision(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParsePrecision("fp6")
	if err == nil {
		t.Fatal("ParsePrecision(fp6): no error")
	}
	for _, s := range []string{`"fp6"`, "fp32, fp16, bf16, fp8, int8, int4"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

func TestPrecisionBytes(t *testing.T) {
	want := map[Precision]float64{FP32: 4, FP16: 2, BF16: 2, FP8: 1, INT8: 1, INT4: 0.5, "fp6": 0}
	for p, b := range want {
		if got := p.Bytes(); got != b {
			t.Errorf("%s.Bytes() = %g, want %g", p, got, b)
		}
		if p.Valid() != (b > 0) {
			t.Errorf("%s.Valid() = %v", p, p.Valid())
		}
	}
}

func TestPrecisionText(t *testing.T) {
	var p Precision
	if err := p.UnmarshalText([]byte("BFloat16")); err != nil || p != BF16 {
		t.Fatalf("UnmarshalText = %q, %v", p, err)
	}
	if err := p.UnmarshalText([]byte("nope")); err == nil {
		t.Fatal("UnmarshalText(nope): no error")
	}
	if b, _ := FP8.MarshalText(); string(b) != "fp8" {
		t.Fatalf("MarshalText = %q", b)
	}
}
