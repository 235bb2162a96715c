package main

import (
	"strings"
	"testing"
)

// A bare number under 1 is most likely a fraction ("0.1" for 10%), which
// read as a percentage would gate at a hundredth of what was meant: it is
// refused with the two readings spelled out. With a % sign it is taken as
// written, and 0 is 0 either way.
func TestParseThresholdRefusesBareFraction(t *testing.T) {
	for _, in := range []string{"0.1", " 0.05 ", "0.999"} {
		v, err := parseThreshold(in)
		if err == nil {
			t.Errorf("parseThreshold(%q) = %v, want an error: a bare number under 1 reads as a fraction", in, v)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "%") || !strings.Contains(msg, "fraction") {
			t.Errorf("parseThreshold(%q): error %q, want it to name both readings", in, msg)
		}
	}
	for in, want := range map[string]float64{"0.1%": 0.001, "0": 0, "0%": 0, "1": 0.01, "10": 0.1, "0.5 %": 0.005} {
		if v, err := parseThreshold(in); err != nil || v != want {
			t.Errorf("parseThreshold(%q) = %v, %v; want %v", in, v, err, want)
		}
	}
}
