package report

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/numfmt"
)

// A latency is shown in the unit it reads best in: never "1000.0ms" for
// what rounds up to a second (nor "1000µs", "60.00s"), minutes and hours
// as a Go duration ("1m40s"), and the shown figure stays within rounding
// of the value, negative ones included.
func TestFmtSecsUnitAfterRounding(t *testing.T) {
	for _, s := range []float64{0.00099996, 0.0009994, 0.99996, 0.99994, 59.996, 59.994, 99.996, 99.994, 0.5, 3e-5, 250, -0.99996, -2} {
		got := numfmt.Secs(s)
		d, err := time.ParseDuration(got)
		if err != nil {
			t.Fatalf("numfmt.Secs(%v) = %q: %v", s, got, err)
		}
		if num := strings.TrimRight(got, "µms"); !strings.ContainsAny(num, "hm") && math.Abs(mustFloat(t, num)) >= 1000 {
			t.Errorf("numfmt.Secs(%v) = %q: want the next unit up", s, got)
		}
		if math.Abs(s) >= 59.995 && got != (time.Duration(math.Round(s))*time.Second).String() {
			t.Errorf("numfmt.Secs(%v) = %q: want whole seconds as a duration from 60 s", s, got)
		}
		if w := d.Seconds(); math.Abs(w-s) > 0.001*math.Abs(s) {
			t.Errorf("numfmt.Secs(%v) = %q: reads as %v", s, got, w)
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
