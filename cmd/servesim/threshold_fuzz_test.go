package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseThreshold: any --threshold either fails with an error that
// names the flag and quotes the input, or is a finite fraction ≥ 0, the
// number given (with or without a % sign) over 100; a bare number in
// (0, 1), without the sign, is refused as a likely fraction. Crashers found are
// kept in testdata/fuzz/FuzzParseThreshold.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{
		"10%", "10", "2.5%", " 2.5 % ", "0", "0%", "-0", "-5%", "nan", "NaN%", "inf", "+Inf%", "1e308%", "1e309",
		"0x1p-2", "%", "10%%", "", "x", "1_0", "5e-324%",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		v, err := parseThreshold(in)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "compare: --threshold "+strconv.Quote(in)+": ") || v != 0 {
				t.Fatalf("parseThreshold(%q) = %v, %v: want 0 and an error naming the flag and quoting the input", in, v, err)
			}
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || !(v >= 0) {
			t.Fatalf("parseThreshold(%q) = %v: want a finite fraction >= 0", in, v)
		}
		num := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(in), "%"))
		if n, err := strconv.ParseFloat(num, 64); err != nil || n/100 != v {
			t.Fatalf("parseThreshold(%q) = %v, but the number %q is %v, %v", in, v, num, n, err)
		}
		if w, err := parseThreshold(num + "%"); err != nil || w != v {
			t.Fatalf("parseThreshold(%q) = %v, but parseThreshold(%q%%) = %v, %v", in, v, num, w, err)
		}
		// a bare number under 1 reads as a fraction and is refused
		n, _ := strconv.ParseFloat(num, 64)
		if w, err := parseThreshold(num); (n > 0 && n < 1) != (err != nil) || (err == nil && w != v) {
			t.Fatalf("parseThreshold(%q) = %v, but parseThreshold(%q) = %v, %v", in, v, num, w, err)
		}
	})
}
