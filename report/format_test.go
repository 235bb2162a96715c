package report

import (
	"fmt"
	"math"
	"testing"
)

// A latency is shown in the unit it reads best in: never "1000.0 ms" for
// what rounds up to a second (nor "1000 µs", "100.00 s"), and the shown
// figure stays within rounding of the value, negative ones included.
func TestFmtSecsUnitAfterRounding(t *testing.T) {
	scale := map[string]float64{"µs": 1e-6, "ms": 1e-3, "s": 1}
	for _, s := range []float64{0.00099996, 0.0009994, 0.99996, 0.99994, 99.996, 99.994, 0.5, 3e-5, 250, -0.99996, -2} {
		got := fmtSecs(s)
		var v float64
		var unit string
		if _, err := fmt.Sscanf(got, "%g %s", &v, &unit); err != nil {
			t.Fatalf("fmtSecs(%v) = %q: %v", s, got, err)
		}
		if unit != "s" && math.Abs(v) >= 1000 {
			t.Errorf("fmtSecs(%v) = %q: want the next unit up", s, got)
		}
		if unit == "s" && math.Abs(v) >= 100 && got != fmt.Sprintf("%.0f s", s) {
			t.Errorf("fmtSecs(%v) = %q: want whole seconds from 100 s", s, got)
		}
		if w := v * scale[unit]; math.Abs(w-s) > 0.001*math.Abs(s) {
			t.Errorf("fmtSecs(%v) = %q: reads as %v", s, got, w)
		}
	}
}
