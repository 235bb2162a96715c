package traces

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
)

// stageProxyRows writes a proxy's staging stream: rows in the order of
// seqs (as they completed), each id its arrival's sequence number.
func stageProxyRows(t *testing.T, path string, seqs []int64) {
	t.Helper()
	meta := Meta{Source: "live"}
	meta.Set("proxy.status", "partial")
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	var row Request
	for _, seq := range seqs {
		row.Reset()
		row.ID, row.Arrival, row.PromptTokens, row.OutputTokens = strconv.FormatInt(seq, 10), seq*1000, 10, 5
		if err := w.Write(&row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A proxy's staging stream converts holding only the rows that finished
// ahead of an earlier arrival: here each pair of arrivals finishes
// swapped, and one long request (arrival 10) finishes 50 rows late, so
// no more than about 50 rows are ever held of 20,000.
func TestConvertProxyStagingHoldsFewRows(t *testing.T) {
	const n = 20000
	var seqs []int64
	for i := int64(0); i < n; i += 2 {
		if i == 10 {
			continue
		}
		seqs = append(seqs, i+1, i)
		if i == 60 {
			seqs = append(seqs, 11, 10)
		}
	}
	maxHeld := 0
	defer func(old func(int)) { observeHeld = old }(observeHeld)
	observeHeld = func(held int) { maxHeld = max(maxHeld, held) }
	dir := t.TempDir()
	in := filepath.Join(dir, "run.parquet"+PartialSuffix)
	stageProxyRows(t, in, seqs)
	out := filepath.Join(dir, "run.parquet")
	if got, err := Convert(context.Background(), in, out); err != nil || got != n {
		t.Fatalf("convert: %d rows, %v; want %d", got, err, n)
	}
	if maxHeld > 60 {
		t.Errorf("held %d rows at once; want at most 60", maxHeld)
	}
	_, rows, err := ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		if row.ID != strconv.Itoa(i) {
			t.Fatalf("row %d: id %s; want %d (arrival order)", i, row.ID, i)
		}
	}
}

// Arrival order is the stable sort by arrival that a stream held whole
// gets: rows of one arrival time keep their completion order, and those
// behind an arrival the stream lacks (3) follow at its end.
func TestArrivalOrderIsTheStableSort(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "run.parquet"+PartialSuffix)
	meta := Meta{Source: "live"}
	w, err := Create(in, meta)
	if err != nil {
		t.Fatal(err)
	}
	var row Request
	for _, r := range []struct {
		id      string
		arrival int64
	}{{"2", 5}, {"1", 5}, {"0", 0}, {"5", 9}, {"4", 9}} { // as they completed
		row.Reset()
		row.ID, row.Arrival, row.PromptTokens, row.OutputTokens = r.id, r.arrival, 1, 1
		if err := w.Write(&row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got string
	for ar := ArrivalOrder(r, in); ar.Next(); {
		got += ar.At().ID + " "
	}
	if want := "0 2 1 5 4 "; got != want {
		t.Errorf("ids %q; want %q", got, want)
	}
}

// An interrupt stops the conversion of a proxy's staging stream while
// it reads ahead of an arrival still missing, not once every row behind
// it has been read and held: here the first arrival finished last.
func TestConvertProxyStagingStopsWhileHolding(t *testing.T) {
	const n, cancelAt = 5000, 100
	seqs := make([]int64, 0, n)
	for i := int64(1); i < n; i++ {
		seqs = append(seqs, i)
	}
	seqs = append(seqs, 0)
	dir := t.TempDir()
	in := filepath.Join(dir, "run.parquet"+PartialSuffix)
	stageProxyRows(t, in, seqs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pulls := 0
	defer func(old func(int)) { observeHeld = old }(observeHeld)
	observeHeld = func(int) {
		if pulls++; pulls == cancelAt {
			cancel()
		}
	}
	_, err := Convert(ctx, in, filepath.Join(dir, "run.parquet"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("convert: %v; want it interrupted", err)
	}
	if pulls > cancelAt+ctxCheckRows {
		t.Errorf("read %d rows, interrupted at row %d; want at most %d more read", pulls, cancelAt, ctxCheckRows)
	}
}
