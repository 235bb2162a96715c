package sim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/servesim/servesim/traces"
)

// inputOrder fails unless w holds one row per input request, in input
// order (ids are the input positions).
func inputOrder(t *testing.T, w *memWriter, ids []string) {
	t.Helper()
	got := make([]string, len(w.rows))
	for i, r := range w.rows {
		got[i] = r.ID
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("rows in order %v, want the input's %v", got, ids)
	}
}

// TestRowsInInputOrder: a request that finishes before an earlier one
// still gets its row after it, under Run, RunClosedLoop and a cluster, so
// a simulated trace keeps its arrivals in order.
func TestRowsInInputOrder(t *testing.T) {
	reqs := func() []*traces.Request {
		// A decodes 50 tokens; B and C arrive during it and finish first.
		return []*traces.Request{req("A", 0, 10, 50), req("B", 5, 10, 2), req("C", 6, 10, 1), req("D", 900, 10, 1)}
	}
	ids := []string{"A", "B", "C", "D"}
	cfg := testConfig(policy(t, Continuous), 100, false)

	_, w := mustRun(t, cfg, reqs())
	inputOrder(t, w, ids)
	if w.byID["B"].LastToken >= w.byID["A"].LastToken {
		t.Fatalf("B ended at %d, A at %d: the case needs B to finish first", w.byID["B"].LastToken, w.byID["A"].LastToken)
	}

	_, w = runClosed(t, cfg, 3, reqs())
	inputOrder(t, w, ids)

	_, w = mustRunCluster(t, onePool(2, RoundRobin, cfg), newSliceReader(reqs()))
	inputOrder(t, w, ids)
}

// TestRowsInInputOrderAzure: every simulated row of the Azure conv trace
// comes in arrival order, with prefix hashes kept through the wait.
func TestRowsInInputOrderAzure(t *testing.T) {
	azure := loadAzure(t, "azure2023/AzureLLMInferenceTrace_conv.csv")[:3000]
	for i, r := range azure {
		r.PrefixHashes = []uint64{uint64(i), uint64(i) + 1}
	}
	cfg := testConfig(policy(t, Continuous), 20000, false)
	cfg.Step = realTimer
	_, w := mustRun(t, cfg, azure)
	if len(w.rows) != len(azure) {
		t.Fatalf("%d rows for %d requests", len(w.rows), len(azure))
	}
	for i, r := range w.rows {
		if r.ID != azure[i].ID || !slices.Equal(r.PrefixHashes, azure[i].PrefixHashes) {
			t.Fatalf("row %d: id %s hashes %v, want %s %v", i, r.ID, r.PrefixHashes, azure[i].ID, azure[i].PrefixHashes)
		}
	}
}

// TestRowOrderFlush: rows still waiting when a run stops early (a static
// OOM leaves requests unfinished) are written in input order, and a
// waiting row is a copy, not the caller's reused row.
func TestRowOrderFlush(t *testing.T) {
	w := &memWriter{}
	o := newRowOrder(w)
	r := req("r3", 0, 1, 1, 7)
	if err := o.put(3, r); err != nil {
		t.Fatal(err)
	}
	r.ID, r.PrefixHashes[0] = "r1", 9 // the caller reuses its row
	if err := o.put(1, r); err != nil {
		t.Fatal(err)
	}
	if err := o.put(0, req("r0", 0, 1, 1)); err != nil {
		t.Fatal(err)
	}
	inputOrder(t, w, []string{"r0", "r1"})
	if err := o.flush(); err != nil {
		t.Fatal(err)
	}
	inputOrder(t, w, []string{"r0", "r1", "r3"})
	if h := w.byID["r3"].PrefixHashes; !slices.Equal(h, []uint64{7}) {
		t.Errorf("r3's hashes %v, want [7]: the waiting row shares the caller's slice", h)
	}
	if newRowOrder(nil).flush() != nil {
		t.Error("flush without a writer failed")
	}
}

// TestRowOrderLongWait: rows that finish far behind an unfinished one,
// more than the waiting room starts with, still come out in input order,
// through put and through flush.
func TestRowOrderLongWait(t *testing.T) {
	w := &memWriter{}
	o := newRowOrder(w)
	var ids []string
	for i := range 300 {
		ids = append(ids, fmt.Sprint(i))
	}
	for i := 299; i >= 1; i-- {
		if i == 150 {
			continue // never finishes: flush writes past it
		}
		if err := o.put(int64(i), req(ids[i], 0, 1, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if len(w.rows) != 0 {
		t.Fatalf("%d rows written before row 0 came", len(w.rows))
	}
	if err := o.put(0, req(ids[0], 0, 1, 1)); err != nil {
		t.Fatal(err)
	}
	inputOrder(t, w, ids[:150])
	if err := o.flush(); err != nil {
		t.Fatal(err)
	}
	inputOrder(t, w, slices.Concat(ids[:150], ids[151:]))
}
