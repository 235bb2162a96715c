package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/internal/numfmt"
)

// hugeCell is the magnitude from which a cell is shown in exponent form.
const hugeCell = numfmt.Huge

func fixedOrExp(v float64, prec int) string { return numfmt.Fixed(v, prec) }

// FormatSecs formats seconds as the report, compare, simulate's and
// verify's tables show them, so that one latency reads the same in all:
// "850µs", "42.1ms", "3.21s", "8m27s" (numfmt.Secs).
func FormatSecs(s float64) string { return numfmt.Secs(s) }

func fmtF(v float64, prec int) string {
	if !known(v) {
		return "—"
	}
	return fixedOrExp(v, prec)
}

// FormatUSD formats dollars as the report, the CLI's summary and verify's
// table show them, so that one figure reads the same in all: "$0.4567",
// "$12.50", "$130" (numfmt.USD).
func FormatUSD(v float64) string { return numfmt.USD(v) }

func fmtPct(v float64) string {
	if !known(v) {
		return "—"
	}
	if p := 100 * v; math.Abs(p) >= hugeCell {
		return hundredfold(v) + "%"
	} else if math.Abs(p) < 0.5 {
		return "0%" // a share rounds: no "-0%", no 3e-05%
	}
	return fmt.Sprintf("%.0f%%", 100*v)
}

func hundredfold(v float64) string { return numfmt.Hundredfold(v) }

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

// htmlAttr escapes s for a double-quoted attribute.
func htmlAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;").Replace(s)
}
