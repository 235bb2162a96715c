package traces

import (
	"fmt"
	"strings"
	"testing"
)

// A Mooncake value that decodes but is out of range (a negative or absurd
// count, a timestamp that is no ms, hash ids off the prompt's blocks) is
// named by its line and the column of its first byte, as a value of the
// wrong JSON type is.
func TestMooncakeRangeErrorsNameColumn(t *testing.T) {
	const good = `{"timestamp": 1, "input_length": 1, "output_length": 3, "hash_ids": [7]}`
	for _, tc := range []struct {
		name, line, at, want string
	}{
		{"negative count", `  {"timestamp": 2, "input_length": -6, "output_length": 3}`, "-6", "(input_length): want a non-negative token count"},
		{"absurd count", `{"timestamp": 2, "input_length": 1, "output_length": 99999999999}`, "99999999999", "(output_length): want a token count of at most"},
		{"string timestamp", "\t" + `{"timestamp": "2", "input_length": 1, "output_length": 3}`, `"2"`, "(timestamp): want a JSON number of ms"},
		{"negative timestamp", `{"input_length": 1, "timestamp":-2, "output_length": 3}`, "-2", "(timestamp): want non-negative ms"},
		{"null timestamp", `{"timestamp": null, "input_length": 1, "output_length": 3}`, "null", "(timestamp): want a timestamp in ms"},
		{"hash ids off the blocks", `{"timestamp": 2, "input_length": 600, "output_length": 3, "hash_ids": [1]}`, "[1]", "(hash_ids): want 2 ids"},
		{"null hash id", `{"timestamp": 2, "input_length": 600, "output_length": 3, "hash_ids" : [1, null]}`, "[1, null]", "(hash_ids): want unsigned integers"},
		{"last of a repeated key", `{"timestamp": 2, "input_length": 5, "Input_Length": -5, "output_length": 3}`, "-5", "(input_length): want a non-negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := importStringErr(FormatMooncake, good+"\n\n"+tc.line+"\n", ImportOptions{Name: "m.jsonl"})
			want := fmt.Sprintf("m.jsonl:3:%d ", strings.LastIndex(tc.line, tc.at)+1)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q and %q", err, want, tc.want)
			}
		})
	}
}
