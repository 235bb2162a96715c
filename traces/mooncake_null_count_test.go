package traces

import (
	"strings"
	"testing"
)

// A Mooncake token count given as null is named by its column, as a null
// timestamp is; one left out has no column to name.
func TestMooncakeNullCountNamesColumn(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"timestamp": 2, "input_length": null, "output_length": 3}`, "m.jsonl:1:34 (input_length): want a token count, got none"},
		{`{"timestamp": 2, "output_length": 3}`, "m.jsonl:1 (input_length): want a token count, got none"},
	} {
		_, err := importStringErr(FormatMooncake, tc.line+"\n", ImportOptions{Name: "m.jsonl"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.line, err, tc.want)
		}
	}
}
