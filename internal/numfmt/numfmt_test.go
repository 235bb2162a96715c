package numfmt

import (
	"math"
	"testing"
)

var (
	nan    = math.NaN()
	posInf = math.Inf(1)
	negInf = math.Inf(-1)
	negZ   = math.Copysign(0, -1)
)

func TestFixed(t *testing.T) {
	for _, c := range []struct {
		v    float64
		prec int
		want string
	}{
		{0, 1, "0.0"},
		{negZ, 1, "0.0"}, // 0 is never signed
		{1.25, 1, "1.2"},
		{-1.26, 1, "-1.3"},
		{0.04, 1, "0.04"}, // rounds to 0: two significant digits
		{-0.04, 1, "-0.04"},
		{0.05, 1, "0.05"},
		{0.051, 1, "0.051"},
		{0.5, 0, "0.5"},
		{0.7, 0, "0.7"},
		{0.996, 0, "1"},
		{0.0996, 1, "0.1"},
		{0.1, 1, "0.1"},
		{0.12, 1, "0.1"},
		{3e-7, 0, "3e-07"},
		{-3e-7, 2, "-3e-07"},
		{5e-324, 0, "4.9e-324"},
		{999_999_999_999_999, 0, "999999999999999"},
		{1e15, 0, "1e+15"},
		{-1e15, 2, "-1e+15"},
		{math.MaxFloat64, 0, "1.8e+308"},
		{nan, 1, "—"},
		{posInf, 0, "—"},
		{negInf, 0, "—"},
	} {
		if got := Fixed(c.v, c.prec); got != c.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.v, c.prec, got, c.want)
		}
	}
}

// Below one unit of the last decimal a figure keeps two significant
// digits on both sides of the half unit, so that nearly equal values read
// nearly equal: 0.0049 and 0.0052, not 0.0049 and 0.01.
func TestFixedBelowOneUnit(t *testing.T) {
	for _, c := range []struct {
		v    float64
		prec int
		want string
	}{
		{0.00494, 2, "0.0049"},
		{0.005, 2, "0.005"},
		{0.00515, 2, "0.0052"},
		{-0.00515, 2, "-0.0052"},
		{0.0099, 2, "0.0099"},
		{0.00996, 2, "0.01"}, // rounds up to one unit: as %f writes it
		{0.01, 2, "0.01"},
		{0.0149, 2, "0.01"},
		{0.00006, 4, "6e-05"},
	} {
		if got := Fixed(c.v, c.prec); got != c.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.v, c.prec, got, c.want)
		}
	}
}

func TestSecs(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0µs"},
		{negZ, "0µs"},
		{850e-6, "850µs"},
		{-850e-6, "-850µs"},
		{3e-10, "0.0003µs"},
		{999.4e-6, "999µs"},
		{999.5e-6, "1.0ms"}, // the unit by the value as rounded
		{-999.5e-6, "-1.0ms"},
		{0.0421, "42.1ms"},
		{0.99994, "999.9ms"},
		{0.99995, "1.00s"},
		{-0.99995, "-1.00s"},
		{3.214, "3.21s"},
		{59.994, "59.99s"},
		{59.995, "1m0s"},
		{507, "8m27s"},
		{-507, "-8m27s"},
		{1e9, "1000000000s"},
		{1e20, "1e+20s"},
		{math.MaxFloat64, "1.8e+308s"},
		{nan, "—"},
		{posInf, "—"},
		{negInf, "—"},
	} {
		if got := Secs(c.v); got != c.want {
			t.Errorf("Secs(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestUSD(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "$0.0000"},
		{negZ, "$0.0000"},
		{0.4567, "$0.4567"},
		{0.00004, "$4e-05"},
		{0.99994, "$0.9999"},
		{0.99995, "$1.00"},
		{12.5, "$12.50"},
		{99.994, "$99.99"},
		{99.995, "$100"},
		{130, "$130"},
		{1e15, "$1e+15"},
		{math.MaxFloat64, "$1.8e+308"},
		// The sign comes before the dollar sign, at every size.
		{-0.4567, "-$0.4567"},
		{-0.00004, "-$4e-05"},
		{-0.99995, "-$1.00"},
		{-5, "-$5.00"},
		{-99.995, "-$100"},
		{-1e15, "-$1e+15"},
		{-math.MaxFloat64, "-$1.8e+308"},
		{nan, "—"},
		{posInf, "—"},
		{negInf, "—"},
	} {
		if got := USD(c.v); got != c.want {
			t.Errorf("USD(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestChange(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "+0.0%"},
		{negZ, "+0.0%"}, // no "-0.0%"
		{0.123, "+12.3%"},
		{-0.04, "-4.0%"},
		{0.0005, "+0.05%"},  // not 0, though it rounds to 0.0%: two significant digits
		{-0.0004, "-0.04%"}, // not "-0.0%"
		{-1e-300, "-1e-298%"},
		{0.00051, "+0.051%"}, // below one unit of the decimal, as its neighbour 0.049%
		{-0.00051, "-0.051%"},
		{0.001, "+0.1%"},
		{9.999e12, "+999900000000000.0%"},
		{1e13, "+1e+15%"},
		{-1e13, "-1e+15%"},
		{math.MaxFloat64, "+1.8e+310%"}, // 100 × v overflows a float64
		{-math.MaxFloat64, "-1.8e+310%"},
		{nan, "—"},
		{posInf, "∞"},
		{negInf, "∞"},
	} {
		if got := Change(c.v, "∞"); got != c.want {
			t.Errorf("Change(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestHundredfold(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{1e13, "1e+15"},
		{-2.5e14, "-2.5e+16"},
		{math.MaxFloat64, "1.8e+310"},
		{5e-324, "4.94e-322"},
		{posInf, "+Inf"},
		{nan, "—"},
	} {
		if got := Hundredfold(c.v); got != c.want {
			t.Errorf("Hundredfold(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestShare(t *testing.T) {
	for _, c := range []struct {
		v    float64
		prec int
		want string
	}{
		{0, 1, "0.0%"},
		{1.0 / 3000, 1, "0.033%"},
		{0.5, 1, "50.0%"},
		{0.9994, 1, "99.9%"},
		{2999.0 / 3000, 1, ">99.9%"},
		{1, 1, "100.0%"},
		{0.00001, 2, "0.001%"},
		{1e-7, 1, "<0.001%"}, // Pct's floor, not "1e-05%"
		{9.9e-6, 3, "<0.001%"},
		{-1e-7, 1, ">-0.001%"},
		{0.99999, 2, ">99.99%"},
		{0.9999, 2, "99.99%"},
		{1, 2, "100.00%"},
		{nan, 1, "—"},
		{posInf, 2, "—"},
	} {
		if got := Share(c.v, c.prec); got != c.want {
			t.Errorf("Share(%v, %d) = %q, want %q", c.v, c.prec, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "candidate", "0 candidates"},
		{1, "candidate", "1 candidate"},
		{2, "metric", "2 metrics"},
		{-1, "run", "-1 runs"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

// A share that is not 0 never reads as "0%", nor one short of all as
// "100%": 2 requests on 768,036 blocks used the cache, and a peak of
// 99.8% did not fill it. Whole percents stand elsewhere.
func TestPctNeverRoundsToNoneOrAll(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0%"},
		{0.0026, "0.26%"},
		{0.00016, "0.016%"},
		{1e-9, "<0.001%"},
		{-0.001, "-0.1%"},
		{-1e-9, ">-0.001%"},
		{0.004994, "0.5%"},
		{0.005, "1%"},
		{0.256, "26%"},
		{0.994, "99%"},
		{0.995, "99.5%"},
		{0.9994, "99.9%"},
		{0.99995, ">99.9%"},
		{1, "100%"},
		{1.003, "100%"},
	} {
		if got := Pct(c.v); got != c.want {
			t.Errorf("Pct(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// A signed share keeps Pct's digits and bounds, with its sign after a
// bound's marker; 0 is never negative.
func TestSignedPct(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0.34, "+34%"},
		{-0.004, "-0.4%"},
		{0.002, "+0.2%"},
		{0, "+0%"},
		{negZ, "+0%"},
		{1e-9, "<+0.001%"},
		{-1e-9, ">-0.001%"},
		{0.99995, ">+99.9%"},
		{1e20, "+1e+22%"},
		{nan, "—"},
		{posInf, "—"},
	} {
		if got := SignedPct(c.v); got != c.want {
			t.Errorf("SignedPct(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestBoundMarks(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{AtLeast("1.25"), "≥1.25"},
		{AtMost("$0.42"), "≤$0.42"},
		{AtLeast("—"), "—"}, // no figure to mark
		{AtMost("—"), "—"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
