package model

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzParsePrecision: any string either fails with an error that quotes
// it and lists the valid precisions, or gives one of Precisions (Valid,
// with a storage size) that its canonical name, in upper case too,
// parses to again, as UnmarshalText of the input and of MarshalText's
// output do. Crashers found are kept in testdata/fuzz/FuzzParsePrecision.
func FuzzParsePrecision(f *testing.F) {
	for _, s := range []string{
		"fp32", "FP16", " bf16 ", "bfloat16", "float16", "half", "fp8", "fp8_e4m3", "fp8_e5m2", "int8", "INT4",
		"i4", "float", "", " ", "fp6", "fp 16", "fp16\x00", "\xff", "\u0130nt8", "int8,fp8",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParsePrecision(in)
		var u Precision
		uerr := u.UnmarshalText([]byte(in))
		if (err == nil) != (uerr == nil) || u != p {
			t.Fatalf("ParsePrecision(%q) = %q, %v, but UnmarshalText gives %q, %v", in, p, err, u, uerr)
		}
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, strconv.Quote(in)) || !strings.Contains(msg, validPrecisions()) || p != "" {
				t.Fatalf("ParsePrecision(%q) = %q, %q: want no precision and an error quoting the input and listing the valid ones", in, p, msg)
			}
			return
		}
		if !slices.Contains(Precisions(), p) || !p.Valid() || !(p.Bytes() > 0) {
			t.Fatalf("ParsePrecision(%q) = %q: not a supported precision", in, p)
		}
		text, err := p.MarshalText()
		if err != nil || string(text) != p.String() {
			t.Fatalf("ParsePrecision(%q) = %q: MarshalText = %q, %v; String = %q", in, p, text, err, p.String())
		}
		for _, name := range []string{p.String(), strings.ToUpper(p.String())} {
			if back, err := ParsePrecision(name); err != nil || back != p {
				t.Fatalf("ParsePrecision(%q) = %q, but ParsePrecision(%q) = %q, %v", in, p, name, back, err)
			}
		}
	})
}
