package report

import (
	"strings"
	"testing"
)

// An inline figure's accessible label is its caption as written: a dollar
// sign in it (a candidate's label, "$1M") is text, not a reference.
func TestInlineSVGLabelKeepsDollarSigns(t *testing.T) {
	svg := []byte(`<?xml version="1.0"?>` + "\n" + `<svg width="612pt" height="300pt" viewBox="0 0 612 300"></svg>`)
	got := string(inlineSVG(svg, `#1 cost=$1M ${x} $name & "q"`))
	want := `aria-label="#1 cost=$1M ${x} $name &amp; &quot;q&quot;"`
	if !strings.Contains(got, want) {
		t.Errorf("got %s\nwant it to hold %s", got, want)
	}
}
