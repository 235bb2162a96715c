package report

import (
	"fmt"
	"math"
	"strings"
)

// Cell formatting: unknown values are an em dash, never 0.

// fmtSecs picks the unit by the value as rounded to its digits (0.99996 s
// is "1.00 s", not "1000.0 ms"), and by its size whatever its sign.
func fmtSecs(s float64) string {
	switch a := math.Abs(s); {
	case !known(s):
		return "—"
	case a < 999.5e-6:
		return fmt.Sprintf("%.0f µs", s*1e6)
	case a < 0.99995:
		return fmt.Sprintf("%.1f ms", s*1e3)
	case a < 99.995:
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.0f s", s)
}

func fmtF(v float64, prec int) string {
	if !known(v) {
		return "—"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func fmtUSD(v float64) string {
	if !known(v) {
		return "—"
	}
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("$%.0f", v)
	case a >= 1:
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

func fmtPct(v float64) string {
	if !known(v) {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*v)
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
