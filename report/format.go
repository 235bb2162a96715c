package report

import (
	"fmt"
	"math"
	"strings"
)

// Cell formatting: unknown values are an em dash, never 0.

func fmtSecs(s float64) string {
	switch {
	case !known(s):
		return "—"
	case s < 1e-3:
		return fmt.Sprintf("%.0f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.1f ms", s*1e3)
	case s < 100:
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
