package verify

import (
	"strings"
	"testing"
)

// A row's measured range is the spread of a candidate's runs: a range on
// a candidate measured once (the report would print "0 runs") is refused.
func TestParseResultRefusesARangeWithoutRuns(t *testing.T) {
	data := edit(t, func(m map[string]any) {
		row := cand(m, 0)["rows"].([]any)[0].(map[string]any)
		row["measured_min"], row["measured_max"] = row["measured"], row["measured"]
	})
	_, err := ParseResult(data, "verify.json")
	if err == nil || !strings.Contains(err.Error(), "candidates[0].rows[0]") || !strings.Contains(err.Error(), "repeats") {
		t.Errorf("a range without repeats: err = %v", err)
	}
}
