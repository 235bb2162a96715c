package traces

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseLengthSpec: any string either fails with an error that quotes
// it, or gives a spec of a known kind, its token counts digits, whose
// parameters are finite and in range (Validate accepts it as the prompt
// and the output of a synthetic trace), that written back in the same
// syntax parses to the same spec, and whose draws all lie within its
// bounds: Value when fixed, [Min, Max] when uniform, [max(1, Min), Max]
// when lognormal (Max 0: the token bound). Crashers found are kept in
// testdata/fuzz/FuzzParseLengthSpec.
func FuzzParseLengthSpec(f *testing.F) {
	for _, s := range []string{
		"fixed:1024", "128", "0", "fixed:10000000", "fixed:10000001", "fixed:-1", "fixed:+7", "fixed:0x10",
		"uniform:1:4000", "uniform:5:5", "uniform:0:0", "uniform:5:4", "uniform:-1:3", "uniform:1:2147483648",
		"lognormal:1000:1", "lognormal:1000:0.8:10:8000", "lognormal:100:1:20000000:0", "lognormal:100:1:50:0",
		"lognormal:1e-300:100", "lognormal:5e-324:0", "lognormal:1e7:100:0:1", "lognormal:0x1p4:-0",
		"lognormal:NaN:1", "lognormal:Inf:1", "lognormal:100:NaN", "lognormal:100:101", "lognormal:100:1:9:3",
		"lognormal:100:1:3", "", ":", "fixed", "fixed:", "fixed:1:2", "uniform:1", "gamma:1:2", "FIXED:1", " fixed:1",
		"fixed: 1", "lognormal:1_0:1", "uniform:\xff:1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		l, err := ParseLengthSpec(in)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(in)) {
				t.Fatalf("ParseLengthSpec(%q): the error does not quote the input: %v", in, err)
			}
			return
		}
		bad := func(what string) { t.Fatalf("ParseLengthSpec(%q) = %+v: %s", in, l, what) }
		inRange := func(n int32) bool { return n >= 0 && n <= DefaultMaxTokens }
		lo, hi := int32(0), int32(0)
		switch l.Kind {
		case LengthFixed:
			if !inRange(l.Value) {
				bad("value out of [0, DefaultMaxTokens]")
			}
			lo, hi = l.Value, l.Value
		case LengthUniform:
			if !inRange(l.Min) || !inRange(l.Max) || l.Max < l.Min {
				bad("want 0 <= min <= max <= DefaultMaxTokens")
			}
			lo, hi = l.Min, l.Max
		case LengthLognormal:
			if math.IsNaN(l.Mean) || math.IsInf(l.Mean, 0) || !(l.Mean > 0) || l.Mean > DefaultMaxTokens {
				bad("want a finite mean in (0, DefaultMaxTokens]")
			}
			if math.IsNaN(l.CV) || math.IsInf(l.CV, 0) || !(l.CV >= 0) || l.CV > 100 {
				bad("want a finite cv in [0, 100]")
			}
			if !inRange(l.Min) || !inRange(l.Max) || (l.Max > 0 && l.Max < l.Min) {
				bad("want 0 <= min <= max <= DefaultMaxTokens (max 0: none)")
			}
			lo, hi = max(1, l.Min), l.Max
			if hi == 0 {
				hi = DefaultMaxTokens
			}
		default:
			bad("unknown kind")
		}
		counts := strings.Split(in, ":")[1:] // the token counts: all but a lognormal's mean and cv
		if l.Kind == LengthLognormal {
			counts = counts[2:]
		} else if len(counts) == 0 {
			counts = []string{in} // a bare N
		}
		for _, n := range counts {
			if strings.Trim(n, "0123456789") != "" {
				bad("token count " + strconv.Quote(n) + " is not digits")
			}
		}
		c := DefaultSynthConfig()
		c.Prompt, c.Output = l, l
		if err := c.Validate(); err != nil {
			bad("Validate refuses it: " + err.Error())
		}
		text := l.spec()
		if back, err := ParseLengthSpec(text); err != nil || back != l {
			t.Fatalf("ParseLengthSpec(%q) = %+v, written %q, read back %+v, %v", in, l, text, back, err)
		}
		d := newLengthDist(l, 0)
		rng := rand.New(rand.NewPCG(uint64(len(in)), 1))
		for range 64 {
			if v := d.draw(rng); v < lo || v > hi {
				t.Fatalf("ParseLengthSpec(%q) = %+v: drew %d, outside [%d, %d]", in, l, v, lo, hi)
			}
		}
	})
}
