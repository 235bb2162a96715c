package traces

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// Dropping a leading failed row moves the trace's start to the first row
// kept: a window cut after the drop holds other requests than the same
// window cut before it. The two must not name one workload.
func TestWorkloadSliceBeforeOrAfterDropFailed(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.csv")
	rows := rowsAt(0, 5, 10, 20)
	rows[0].SourceFailed = true
	imported := Meta{Source: "burstgpt:b.csv", Checksums: map[string]string{"b.csv": "sha256:00"}}
	if _, err := WriteTrace(context.Background(), raw, &sliceReader{meta: imported, rows: rows}); err != nil {
		t.Fatal(err)
	}
	dropped, err := Import(raw, FormatServesim, ImportOptions{DropFailed: true})
	if err != nil {
		t.Fatal(err)
	}
	a := Slice(dropped, 0, 6, 0)
	na := len(drain(t, a))
	r, err := Import(raw, FormatServesim, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sliced := filepath.Join(dir, "sliced.csv")
	if _, err := WriteTrace(context.Background(), sliced, Slice(r, 0, 6, 0)); err != nil {
		t.Fatal(err)
	}
	b, err := Import(sliced, FormatServesim, ImportOptions{DropFailed: true})
	if err != nil {
		t.Fatal(err)
	}
	nb := len(drain(t, b))
	if !SameInputs(a.Meta().Checksums, b.Meta().Checksums) {
		t.Fatalf("inputs differ: %v, %v", a.Meta().Checksums, b.Meta().Checksums)
	}
	if wa, wb := Workload(a.Meta()), Workload(b.Meta()); na != nb && reflect.DeepEqual(wa, wb) {
		t.Errorf("%d and %d requests, one workload %v", na, nb, wa)
	}
}
