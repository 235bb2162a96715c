package verify

import (
	"strings"
	"testing"
)

// verify.json's consistency.per_candidate rows are checked as the totals
// are: a bad row is an error that names it and says what was expected.
func TestParseResultChecksConsistencyRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  map[string]any
		want string
	}{
		{"differ over compared", map[string]any{"label": "seqs=2", "compared": 3, "differ": 4, "fraction_differ": 1}, "consistency.per_candidate[0]: 4 of 3"},
		{"negative", map[string]any{"label": "seqs=2", "compared": -1, "differ": 0, "fraction_differ": 0}, "consistency.per_candidate[0]: 0 of -1"},
		{"fraction", map[string]any{"label": "seqs=2", "compared": 20, "differ": 5, "fraction_differ": 0.5}, "consistency.per_candidate[0].fraction_differ = 0.5"},
		{"more than compared in all", map[string]any{"label": "seqs=2", "compared": 21, "differ": 0, "fraction_differ": 0}, "consistency.per_candidate[0].compared = 21"},
		{"no label", map[string]any{"label": "", "compared": 20, "differ": 0, "fraction_differ": 0}, "consistency.per_candidate[0].label"},
	} {
		data := edit(t, func(m map[string]any) {
			m["consistency"].(map[string]any)["per_candidate"] = []any{tc.row}
		})
		_, err := ParseResult(data, "verify.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one with %q", tc.name, err, tc.want)
		}
	}
}
