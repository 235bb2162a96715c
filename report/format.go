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

// fmtPct is a share as a whole percent, with finer digits where the
// whole percent would misread it: a share that is not 0 never reads as
// "0%" (a cache barely used is not unused), nor one short of all as
// "100%" (a peak of 99.8% did not fill the cache).
func fmtPct(v float64) string {
	p := 100 * v
	switch a := math.Abs(p); {
	case !known(v):
		return "—"
	case a >= numfmt.Huge:
		return numfmt.Hundredfold(v) + "%"
	case a == 0:
		return "0%" // never "-0%"
	case a < pctFloor && p > 0:
		return "<0.001%"
	case a < pctFloor:
		return ">-0.001%"
	case a < 0.5:
		return fmt.Sprintf("%.2g%%", p) // two significant digits: 0.016%
	case p >= 99.95 && p < 100:
		return ">99.9%"
	case p >= 99.5 && p < 100:
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", math.Round(p)) // %.0f rounds a half to even: 0.5% read "0%"
}

// pctFloor is the smallest share, in percent, fmtPct gives digits for:
// below it the figure would need exponent form (3e-05%).
const pctFloor = 0.001

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
