package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/plan"
)

// FuzzParseCond: any skip_if condition either fails with an error that
// says what is wrong, or is one comparison per && of a known key, an
// operator and a key or a value a config can have (a number that is not
// NaN), and of the default continuous plan, each comparison holds exactly
// when the one with the opposite operator does not. Seeds:
// testdata/fuzz/FuzzParseCond.
func FuzzParseCond(f *testing.F) {
	p, err := plan.Load("../../cmd/servesim/defaults/4-continuous.toml")
	if err != nil {
		f.Fatal(err)
	}
	cfg := &Config{Plan: p}
	opposite := map[string]string{"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := parseCond(in)
		if err != nil {
			if c != nil || err.Error() == "" {
				t.Fatalf("parseCond(%q) = %+v, %q: want no condition and an error saying what is wrong", in, c, err)
			}
			return
		}
		if len(c) != len(splitAnd(in)) || len(c) > strings.Count(in, "&&")+1 {
			t.Fatalf("parseCond(%q) = %d comparisons, want one per &&", in, len(c))
		}
		for _, cmp := range c {
			if _, ok := lookupKey(cmp.left); !ok || !slices.Contains(ops, cmp.op) {
				t.Fatalf("parseCond(%q): comparison %+v of an unknown key or operator", in, cmp)
			}
			if _, ok := lookupKey(cmp.right); cmp.rkey && !ok {
				t.Fatalf("parseCond(%q): comparison %+v with an unknown key", in, cmp)
			}
			if f, ok := cmp.lit.(float64); !cmp.rkey && (cmp.lit == nil || ok && math.IsNaN(f)) {
				t.Fatalf("parseCond(%q): comparison %+v with a value no config has", in, cmp)
			}
			if _, ok := cfg.value(cmp.left); !ok {
				continue // the key does not apply to the plan's strategy
			}
			if _, ok := cfg.value(cmp.right); cmp.rkey && !ok {
				continue
			}
			neg := cmp
			neg.op = opposite[cmp.op]
			if cmp.holds(cfg) == neg.holds(cfg) {
				t.Fatalf("parseCond(%q): %+v and %+v both hold or both fail", in, cmp, neg)
			}
		}
		_ = c.holds(cfg)
	})
}
