package main

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseSlice: any --slice either fails with an error that names the
// flag and the input, or is a slice of one form, the first N > 0
// requests (N in digits) or a window with 0 ≤ FROM < TO (TO 0: to the
// end), that String writes as text which parses to the same slice.
// Crashers found are kept in testdata/fuzz/FuzzParseSlice.
func FuzzParseSlice(f *testing.F) {
	for _, s := range []string{
		"", "all", "40", "+40", "040", "0", "-3", "0s:60s", "10s:", ":60s", ":", "1m:1m30s", "60s:10s", "0s:0s",
		"-1s:", "a:b", "x", "1h0m0s:", "2562047h47m16.854775807s:", "1ns:2ns", "1.5µs:2us", "10s:20s:30s",
		"9223372036854775807", "99999999999999999999", " 40", "40 ", "0s:-5s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sl, err := parseSlice(in)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "verify: --slice ") || !(strings.Contains(msg, in) || strings.Contains(msg, strconv.Quote(in))) {
				t.Fatalf("parseSlice(%q): the error does not name --slice and the input: %v", in, err)
			}
			return
		}
		if sl.Head < 0 || (sl.Head > 0 && (sl.From != 0 || sl.To != 0)) || sl.From < 0 || (sl.To != 0 && sl.To <= sl.From) {
			t.Fatalf("parseSlice(%q) = %+v: want N > 0 requests or 0 <= FROM < TO", in, sl)
		}
		if sl.Head > 0 && strings.Trim(in, "0123456789") != "" {
			t.Fatalf("parseSlice(%q) = %+v: want N in digits", in, sl)
		}
		text := sl.String()
		if back, err := parseSlice(text); err != nil || back != sl {
			t.Fatalf("parseSlice(%q) = %+v, written %q, read back %+v, %v", in, sl, text, back, err)
		}
	})
}
