package report

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/numfmt"
)

// Cells stay readable at the extremes a results file can hold: a huge
// figure in exponent form rather than hundreds of digits, a figure that is
// not 0 never shown as 0, and 0 never signed.
func TestCellsAtExtremes(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{fmtF(1e300, 0), "1e+300"},
		{fmtF(-2.5e20, 2), "-2.5e+20"},
		{fmtF(math.MaxFloat64, 0), "1.8e+308"},
		{fmtF(0.004, 2), "0.004"},
		{fmtF(3e-7, 0), "3e-07"},
		{fmtF(0.5, 0), "0.5"},
		{fmtF(math.Copysign(0, -1), 2), "0.00"},
		{fmtF(12.345, 2), "12.35"}, // ordinary values as before
		{numfmt.USD(1e29), "$1e+29"},
		{numfmt.USD(2e-6), "$2e-06"},
		{numfmt.USD(math.Copysign(0, -1)), "$0.0000"},
		{numfmt.USD(0.1234), "$0.1234"},
		{numfmt.USD(12.78), "$12.78"},
		{numfmt.USD(1234), "$1234"},
		{numfmt.Secs(1e300), "1e+300s"},
		{numfmt.Secs(3e-7), "0.3µs"},
		{numfmt.Secs(math.Copysign(0, -1)), "0µs"},
		{numfmt.Secs(250), "4m10s"},
		{numfmt.Pct(1e20), "1e+22%"},
		{numfmt.Pct(math.MaxFloat64), "1.8e+310%"},
		{numfmt.Pct(-0.001), "-0.1%"},
		{numfmt.Pct(0.256), "26%"},
		{fmtRel(1e20), "+1e+22%"},
		{fmtRel(-math.MaxFloat64), "-1.8e+310%"},
		{fmtRel(0.1234), "+12.3%"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// A comparison of huge figures keeps each cell short.
	a, b := handRun("a", 1), handRun("b", 1)
	b.Metrics.DeviceSeconds, b.Metrics.OutTokPerSec = 1e300, 1e300
	var out strings.Builder
	if err := WriteComparison(&out, a, b, compareRuns(t, a, b, 0.1), 0.1); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if len(line) > 200 {
			t.Errorf("line of %d characters: %.80s…", len(line), line)
		}
	}
}
