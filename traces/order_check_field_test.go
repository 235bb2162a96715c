package traces

import (
	"strings"
	"testing"
)

// A servesim trace whose arrival goes back in time is refused naming the
// row, the arrival column and what was wanted of it, as an import's
// timestamp is.
func TestCheckOrderNamesTheArrival(t *testing.T) {
	src := &rowsReader{rows: []*Request{{Arrival: 10}, {Arrival: 4}}, i: -1}
	r := CheckOrder(src, "t.parquet")
	for r.Next() {
	}
	const want = "t.parquet: row 2: arrival_ns: arrival goes back in time: want an arrival at or after the previous row's, got one 6ns before it"
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}
