package traces

import (
	"strings"
	"testing"
)

// Mooncake's timestamps are JSON numbers: a quoted one is another schema,
// refused with its line and field rather than read as the number inside.
func TestMooncakeStringTimestampRefused(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 1, "output_length": 1}` + "\n" +
		`{"timestamp": "1000", "input_length": 1, "output_length": 1}` + "\n"
	rows, err := importStringErr(FormatMooncake, in, ImportOptions{Name: "m.jsonl"})
	if err == nil || !strings.Contains(err.Error(), "m.jsonl:2:15 (timestamp)") || !strings.Contains(err.Error(), "string") {
		t.Fatalf("got %d rows and error %v, want m.jsonl:2:15 (timestamp) refusing a string", len(rows), err)
	}
	// A null timestamp is none, as before; a number still reads.
	if _, err := importStringErr(FormatMooncake, `{"timestamp": null, "input_length": 1, "output_length": 1}`+"\n", ImportOptions{}); err == nil || !strings.Contains(err.Error(), "got none") {
		t.Errorf("null timestamp: got %v, want got none", err)
	}
	if rows, err := importStringErr(FormatMooncake, `{"timestamp": 0, "input_length": 1, "output_length": 1}`+"\n"+`{"timestamp": 1.5e3, "input_length": 1, "output_length": 1}`+"\n", ImportOptions{}); err != nil || len(rows) != 2 || rows[1].Arrival != 1.5e9 {
		t.Errorf("number timestamps: got %v, %v", rows, err)
	}
}
