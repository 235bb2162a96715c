package traces

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// FuzzParseRateCurve: any string either fails with an error that names
// the rate curve, or gives points that, written back (formatCurve),
// parse to the same points. A curve validateCurve accepts maps every
// expected event count, within its points and past them, to a finite
// time never earlier than a smaller count's.
// Crashers found are kept in testdata/fuzz/FuzzParseRateCurve.
func FuzzParseRateCurve(f *testing.F) {
	for _, s := range []string{
		"0:1,600:5,1200:1", "0:1", "0:0,10:1", "0:5,10:0,20:5", " 0:1 , 5:2 ", "0:1e6", "0:1e-300,1:1",
		"0:1,0:2", "1:1", "0:-1", "0:NaN", "0:Inf", "0:1,4294967297:1", "0:1,10:0", "", ",", "0", "0:", ":1",
		"0:1,,5:2", "0x1p4:1", "0:1_0", "0:1:2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		points, err := ParseRateCurve(in)
		if err != nil {
			if !strings.Contains(err.Error(), "rate curve") {
				t.Fatalf("ParseRateCurve(%q): the error does not name the rate curve: %v", in, err)
			}
			return
		}
		again, err := ParseRateCurve(formatCurve(points))
		if err != nil || !slices.EqualFunc(points, again, func(a, b RatePoint) bool {
			return sameFloat(a.T, b.T) && sameFloat(a.Rate, b.Rate)
		}) {
			t.Fatalf("ParseRateCurve(%q) = %v; written back as %q it parses to %v (%v)", in, points, formatCurve(points), again, err)
		}
		if validateCurve(points) != nil {
			return
		}
		rc := newRateCurve(points)
		total := rc.cum[len(rc.cum)-1]
		prev := 0.0
		for _, tau := range []float64{0, total / 3, total / 2, total, total + 1, 2*total + 10} {
			at := rc.at(tau)
			if math.IsNaN(at) || math.IsInf(at, 0) || at < prev-1e-9*math.Max(1, prev) {
				t.Fatalf("curve %v: at(%g) = %g after %g for a smaller count", points, tau, at, prev)
			}
			prev = at
		}
	})
}

// sameFloat is a == b, with NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
