package report

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"
)

// Cell formatting: unknown values are an em dash, never 0. Past hugeCell
// in magnitude a figure is shown in exponent form (1e+20), not as dozens
// of digits; a value that is not 0 but rounds to 0 at the cell's decimals
// keeps two significant digits (3e-07), so that it does not read as none;
// and 0 is never signed.

// hugeCell is the magnitude from which fixed-point output stops being
// readable (16 digits and more).
const hugeCell = 1e15

// fixedOrExp is v with prec decimals, in exponent form when huge, or with
// two significant digits where the decimals would show 0.
func fixedOrExp(v float64, prec int) string {
	switch a := math.Abs(v); {
	case a == 0:
		return fmt.Sprintf("%.*f", prec, 0.0)
	case a >= hugeCell:
		return fmt.Sprintf("%.3g", v)
	case a <= 0.5*math.Pow10(-prec): // %f rounds an exact half to even: 0.5 is "0"
		return fmt.Sprintf("%.2g", v)
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// FormatSecs formats seconds as the report, compare and simulate's table
// show them, so that one latency reads the same in all: "850µs",
// "42.1ms", "3.21s", "8m27s". It picks the unit by the value as rounded
// to its digits (0.99996 s is "1.00s", not "1000.0ms"), and by its size
// whatever its sign.
func FormatSecs(s float64) string {
	switch a := math.Abs(s); {
	case !known(s):
		return "—"
	case a < 999.5e-6:
		return fixedOrExp(s*1e6, 0) + "µs"
	case a < 0.99995:
		return fmt.Sprintf("%.1fms", s*1e3)
	case a < 59.995:
		return fmt.Sprintf("%.2fs", s)
	case a < 1e9: // within a time.Duration
		return (time.Duration(math.Round(s)) * time.Second).String()
	}
	return fixedOrExp(s, 0) + "s"
}

func fmtF(v float64, prec int) string {
	if !known(v) {
		return "—"
	}
	return fixedOrExp(v, prec)
}

// FormatUSD formats dollars as the report and the CLI's summary show them,
// so that one figure reads the same in both. It picks the decimals by the
// value as rounded to them, as FormatSecs picks its unit: $99.996 is "$100",
// not "$100.00", and $0.99996 is "$1.00", not "$1.0000".
func FormatUSD(v float64) string {
	if !known(v) {
		return "—"
	}
	switch a := math.Abs(v); {
	case a < 0.99995:
		return "$" + fixedOrExp(v, 4)
	case a < 99.995:
		return fmt.Sprintf("$%.2f", v)
	}
	return "$" + fixedOrExp(v, 0)
}

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

// hundredfold is 100 × v in exponent form, exact where 100 × v would
// overflow to Inf.
func hundredfold(v float64) string {
	return new(big.Float).Mul(big.NewFloat(v), big.NewFloat(100)).Text('g', 3)
}

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
