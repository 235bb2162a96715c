package main

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// FuzzParsePromptLengths: any --prompt-lengths either fails with an error
// that names the flag and quotes the item that is not a 32-bit integer,
// or gives one length per comma-separated item ("" none), which joined
// with commas parse to the same lengths; a synthetic trace of them either
// validates or is refused naming --prompt-lengths and a length outside
// [0, traces.DefaultMaxTokens]. Crashers found are kept in
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
				quoted = quoted || strings.Contains(msg, strconv.Quote(item))
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
		bad := slices.IndexFunc(ls, func(l int32) bool { return l < 0 || l > traces.DefaultMaxTokens })
		err = flagErrors("synth", synthFlags, cfg.Validate())
		switch {
		case bad < 0 && err != nil:
			t.Fatalf("parsePromptLengths(%q) = %v, which synth refuses: %v", in, ls, err)
		case bad >= 0 && (err == nil || !strings.Contains(err.Error(), "--prompt-lengths: "+strconv.Itoa(int(ls[bad])))):
			t.Fatalf("parsePromptLengths(%q) = %v: %d is out of range, but synth says %v", in, ls, ls[bad], err)
		}
		var fe *traces.FieldError
		if errors.As(err, &fe) {
			t.Fatalf("parsePromptLengths(%q): the error names the field, not the flag: %v", in, err)
		}
	})
}
