package traces

import (
	"fmt"
	"strings"
	"testing"
)

// A Mooncake error names the line and the column of the offending
// value's first byte, counted in the line as written (indentation
// included), as the CSV importers name a field's first byte.
func TestMooncakeErrorsNameLineAndColumn(t *testing.T) {
	const good = `{"timestamp": 1, "input_length": 1, "output_length": 3}`
	for _, tc := range []struct {
		name, line, at, want string
	}{
		{"string for a count", `  {"timestamp": 2, "input_length": "a\"b", "output_length": 3}`, `"a\"b"`, "(input_length): want int64"},
		{"negative hash", "\t" + `{"timestamp": 2, "input_length": 600, "output_length": 3, "hash_ids": [1, -1]}`, "-1", "(hash_ids): want uint64"},
		{"bool for a count", `{"timestamp": 2, "input_length": true, "output_length": 3}`, "true", "(input_length): want int64"},
		{"array for a count", ` {"timestamp": 2, "input_length": [1], "output_length": 3}`, "[1]", "(input_length): want int64"},
		{"bad literal", `   {"timestamp": 2, "input_length": x}`, "x", "want a JSON object"},
		{"trailing garbage", good + "  x", "x", "want a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := importStringErr(FormatMooncake, good+"\n\n"+tc.line+"\n", ImportOptions{Name: "m.jsonl"})
			want := fmt.Sprintf("m.jsonl:3:%d", strings.Index(tc.line, tc.at)+1)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q and %q", err, want, tc.want)
			}
		})
	}
}
