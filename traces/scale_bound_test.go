package traces

import (
	"strings"
	"testing"
)

// A scale that puts an arrival past the 2^32 s a trace's clock holds is
// refused at that row, as the importers refuse such a timestamp: a
// reader of the scaled rows (the simulator) must not see a row no trace
// may hold, though its ns still fit an int64.
func TestScalePastTraceClock(t *testing.T) {
	rows := rowsAt(0, 3e18)
	s, err := Scale(&sliceReader{rows: rows}, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for s.Next() {
		n++
	}
	if err := s.Err(); n != 1 || err == nil || !strings.Contains(err.Error(), "row 2: scaled arrival 6000000000000000000 ns is past 2^32 s") {
		t.Errorf("%d rows, err %v; want row 1 and an error naming row 2 and the bound", n, err)
	}
}
