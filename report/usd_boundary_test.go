package report

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/numfmt"
)

// numfmt.USD shows dollars ≥ 100 whole, dollars ≥ 1 in cents and less with four
// decimals, judged by the figure it shows: a value just under a boundary
// that rounds up across it takes the wider range's decimals.
func TestUSDDecimalsFollowTheShownValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{99.995, "$100"},
		{99.994999, "$99.99"},
		{-99.996, "-$100"},
		{0.99995, "$1.00"},
		{0.99994999, "$0.9999"},
		{-0.99996, "-$1.00"},
		{100, "$100"},
		{1, "$1.00"},
	} {
		if got := numfmt.USD(c.v); got != c.want {
			t.Errorf("numfmt.USD(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	// Every value near a boundary: the decimals fit the figure shown.
	for _, edge := range []float64{1, 100} {
		for _, d := range []float64{-1e-3, -1e-4, -5.1e-5, -5e-5, -4.9e-5, -5e-6, -5e-7, -1e-9, 0, 1e-9, 5e-5, 1e-3} {
			for _, v := range []float64{edge + d*edge, math.Nextafter(edge*(1+d), 0), -(edge + d*edge)} {
				got := numfmt.USD(v)
				num := strings.Replace(got, "$", "", 1) // "-$1.00" reads as -1.00
				shown, err := strconv.ParseFloat(num, 64)
				if err != nil {
					t.Fatalf("numfmt.USD(%v) = %q: %v", v, got, err)
				}
				decimals := 0
				if i := strings.IndexByte(num, '.'); i >= 0 {
					decimals = len(num) - i - 1
				}
				want := 4
				switch a := math.Abs(shown); {
				case a >= 100:
					want = 0
				case a >= 1:
					want = 2
				}
				if decimals != want {
					t.Errorf("numfmt.USD(%v) = %q: %d decimals, want %d for a figure of %v", v, got, decimals, want, shown)
				}
			}
		}
	}
}
