package report

import (
	"strings"

	"github.com/servesim/servesim/internal/numfmt"
)

func fmtF(v float64, prec int) string {
	if !known(v) {
		return "—"
	}
	return numfmt.Fixed(v, prec)
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
