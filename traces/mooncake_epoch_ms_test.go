package traces

import (
	"strings"
	"testing"
)

// Mooncake timestamps are ms on the trace's own clock; a trace stamped in
// Unix ms (1.7e12, past 2^32) is within the 2^32 s every other format
// accepts and imports re-based as they do. Past 2^32 s it is refused.
func TestMooncakeUnixMillis(t *testing.T) {
	in := `{"timestamp": 1700000000000, "input_length": 1, "output_length": 1}` + "\n" +
		`{"timestamp": 1700000001500.25, "input_length": 1, "output_length": 1}` + "\n"
	r, err := NewImporter(FormatMooncake, strings.NewReader(in), ImportOptions{Name: "m.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	rows := drain(t, r)
	if len(rows) != 2 || rows[0].Arrival != 0 || rows[1].Arrival != 1_500_250_000 {
		for _, q := range rows {
			t.Logf("arrival %d", q.Arrival)
		}
		t.Fatalf("%d rows, want 2 at 0 and 1500250000 ns", len(rows))
	}
	r, err = NewImporter(FormatMooncake, strings.NewReader(`{"timestamp": 4294967296000, "input_length": 1, "output_length": 1}`+"\n"), ImportOptions{Name: "m.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "m.jsonl:1:15 (timestamp): want non-negative ms below 2^32 s") {
		t.Errorf("2^32 s in ms: err %v, want it refused naming the bound", err)
	}
}
