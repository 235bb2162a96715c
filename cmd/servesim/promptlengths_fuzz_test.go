package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// FuzzParsePromptLengths: any --prompt-lengths either fails with an error
// that names the flag and quotes the item (spaces around it trimmed) that
// is not a token count, or gives one length per comma-separated item (""
// none), each digits, which joined with commas parse to the same lengths
// and which a synthetic trace takes: every length in [0,
// traces.DefaultMaxTokens]. Crashers found are kept in
// testdata/fuzz/FuzzParsePromptLengths.
func FuzzParsePromptLengths(f *testing.F) {
	for _, s := range []string{
		"", "128", "7,9", "128, 512 ,2048", "0", "-5", "10000000", "10000001", "2147483647", "2147483648", ",", "1,,2",
		"1;2", "+3", "0x10", " ", "1,", "１２",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ls, err := parsePromptLengths(in)
		if err != nil {
			msg := err.Error()
			quoted := false
			for _, item := range strings.Split(in, ",") {
				quoted = quoted || strings.Contains(msg, strconv.Quote(strings.TrimSpace(item)))
			}
			if !strings.HasPrefix(msg, "--prompt-lengths: ") || !quoted || ls != nil {
				t.Fatalf("parsePromptLengths(%q) = %v, %v: want no lengths and an error naming the flag and quoting an item", in, ls, err)
			}
			return
		}
		if in == "" {
			if ls != nil {
				t.Fatalf(`parsePromptLengths("") = %v, want nil`, ls)
			}
			return
		}
		if len(ls) != strings.Count(in, ",")+1 {
			t.Fatalf("parsePromptLengths(%q) = %v: want one length per item", in, ls)
		}
		for _, item := range strings.Split(in, ",") {
			if strings.Trim(strings.TrimSpace(item), "0123456789") != "" {
				t.Fatalf("parsePromptLengths(%q) = %v: item %q is not digits", in, ls, item)
			}
		}
		items := make([]string, len(ls))
		for i, l := range ls {
			items[i] = strconv.Itoa(int(l))
		}
		text := strings.Join(items, ",")
		if back, err := parsePromptLengths(text); err != nil || !slices.Equal(back, ls) {
			t.Fatalf("parsePromptLengths(%q) = %v, written %q, read back %v, %v", in, ls, text, back, err)
		}
		cfg := traces.DefaultSynthConfig()
		cfg.PromptLengths = ls
		if err := cfg.Validate(); err != nil {
			t.Fatalf("parsePromptLengths(%q) = %v, which synth refuses: %v", in, ls, err)
		}
	})
}
