package verify

import (
	"strings"
	"testing"
)

// The report prints "differ of compared (fraction)": a fraction that is
// not differ ÷ compared would print two figures that disagree.
func TestParseResultRefusesAFractionThatIsNotDifferOverCompared(t *testing.T) {
	data := edit(t, func(m map[string]any) {
		cs := m["consistency"].(map[string]any)
		cs["differ"], cs["fraction_differ"] = 1, 0.9
	})
	_, err := ParseResult(data, "verify.json")
	if err == nil || !strings.Contains(err.Error(), "consistency.fraction_differ") {
		t.Errorf("1 of 20 differ at fraction 0.9: err = %v", err)
	}
	data = edit(t, func(m map[string]any) {
		cs := m["consistency"].(map[string]any)
		cs["differ"], cs["fraction_differ"] = 3, 0.15
	})
	if _, err := ParseResult(data, "verify.json"); err != nil {
		t.Errorf("3 of 20 differ at fraction 0.15: %v", err)
	}
}
