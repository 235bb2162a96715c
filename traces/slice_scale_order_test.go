package traces

import (
	"reflect"
	"testing"
)

// A window cut after a scale holds other requests than the same window
// cut before it: the two must not name one workload.
func TestWorkloadSliceBeforeOrAfterScale(t *testing.T) {
	const window = 10
	scaledFirst, err := Scale(&sliceReader{rows: rowsAt(0, 4, 8, 12, 16)}, 2)
	if err != nil {
		t.Fatal(err)
	}
	a := Slice(scaledFirst, 0, window, 0)
	b, err := Scale(Slice(&sliceReader{rows: rowsAt(0, 4, 8, 12, 16)}, 0, window, 0), 2)
	if err != nil {
		t.Fatal(err)
	}
	na, nb := len(drain(t, a)), len(drain(t, b))
	wa, wb := Workload(a.Meta()), Workload(b.Meta())
	if na != nb && reflect.DeepEqual(wa, wb) {
		t.Errorf("%d and %d requests, one workload %v", na, nb, wa)
	}
}
