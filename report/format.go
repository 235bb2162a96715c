package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/internal/numfmt"
)

func fmtF(v float64, prec int) string {
	if !known(v) {
		return "—"
	}
	return numfmt.Fixed(v, prec)
}

func fmtPct(v float64) string {
	if !known(v) {
		return "—"
	}
	if p := 100 * v; math.Abs(p) >= numfmt.Huge {
		return numfmt.Hundredfold(v) + "%"
	} else if math.Abs(p) < 0.5 {
		return "0%" // a share rounds: no "-0%", no 3e-05%
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
