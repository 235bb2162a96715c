package sim

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzParsePolicy: any string either fails with an error that quotes it
// and lists every policy, or names one of Policies (in any case, with
// spaces around) and gives that policy's default configuration, which
// Validate accepts and which the canonical name, in upper case too,
// parses to again. Crashers found are kept in
// testdata/fuzz/FuzzParsePolicy.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{
		"serial", "fixed", "token_budget", "continuous", "Continuous ", " FIXED\t", "Token_Budget", "", " ",
		"lifo", "token-budget", "continuous\x00", "serial,fixed", "\xff", "conti\u212Auous",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParsePolicy(in)
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, strconv.Quote(in)) || !strings.Contains(msg, strings.Join(Policies, ", ")) || p != (PolicyConfig{}) {
				t.Fatalf("ParsePolicy(%q) = %+v, %q: want the zero config and an error quoting the input and listing the policies", in, p, msg)
			}
			return
		}
		if !slices.Contains(Policies, p.Name) {
			t.Fatalf("ParsePolicy(%q) = %+v: an unknown name", in, p)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("ParsePolicy(%q) = %+v, which Validate refuses: %v", in, p, err)
		}
		for _, name := range []string{p.Name, strings.ToUpper(p.Name)} {
			if back, err := ParsePolicy(name); err != nil || back != p {
				t.Fatalf("ParsePolicy(%q) = %+v, but ParsePolicy(%q) = %+v, %v", in, p, name, back, err)
			}
		}
	})
}
