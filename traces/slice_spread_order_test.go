package traces

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// Spreading moves a group's arrivals up to the next one's: a window cut
// after the spread may lose the members moved past its end, which the
// same window cut before it keeps. The two must not name one workload.
func TestWorkloadSliceBeforeOrAfterSpread(t *testing.T) {
	const s = int64(1e9)
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.csv")
	imported := Meta{Source: "mooncake:m.jsonl", Checksums: map[string]string{"m.jsonl": "sha256:00"}}
	if _, err := WriteTrace(context.Background(), raw, &sliceReader{meta: imported, rows: rowsAt(0, 0, 0, 10*s)}); err != nil {
		t.Fatal(err)
	}
	// Spread, then slice.
	spread, err := Import(raw, FormatServesim, ImportOptions{Spread: 6 * s})
	if err != nil {
		t.Fatal(err)
	}
	a := Slice(spread, 0, 3*s, 0)
	na := len(drain(t, a))
	// Slice, then spread.
	r, err := Import(raw, FormatServesim, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sliced := filepath.Join(dir, "sliced.csv")
	if _, err := WriteTrace(context.Background(), sliced, Slice(r, 0, 3*s, 0)); err != nil {
		t.Fatal(err)
	}
	b, err := Import(sliced, FormatServesim, ImportOptions{Spread: 6 * s})
	if err != nil {
		t.Fatal(err)
	}
	nb := len(drain(t, b))
	wa, wb := Workload(a.Meta()), Workload(b.Meta())
	if !SameInputs(a.Meta().Checksums, b.Meta().Checksums) {
		t.Fatalf("inputs differ: %v, %v", a.Meta().Checksums, b.Meta().Checksums)
	}
	if na != nb && reflect.DeepEqual(wa, wb) {
		t.Errorf("%d and %d requests, one workload %v", na, nb, wa)
	}
}
