package verify

import (
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/traces"
)

// The slice's request count is of the measured requests, as each
// candidate's own count is: warm-up rows load the engine and are sized
// with the rest, but are not the requests verify compares.
func TestSliceCountsMeasuredRequests(t *testing.T) {
	dir := t.TempDir()
	var reqs []*traces.Request
	for i := range 5 {
		var r traces.Request
		r.Reset()
		r.ID = string(rune('a' + i))
		r.Arrival = int64(i) * 1e6
		r.PromptTokens, r.OutputTokens = 60, 12
		r.Warmup = i < 2
		reqs = append(reqs, &r)
	}
	in := filepath.Join(dir, "trace.parquet")
	if err := traces.WriteAll(in, traces.Meta{Source: "test"}, reqs); err != nil {
		t.Fatal(err)
	}
	z, err := writeSlice(t.Context(), in, filepath.Join(dir, "slice.parquet"), Slice{})
	if err != nil {
		t.Fatal(err)
	}
	if z.requests != 3 || z.total != 5*72 || z.longest != 72 {
		t.Errorf("slice: %d requests, %d tokens in all, %d at most; want 3 measured (of 5 rows), 360 and 72", z.requests, z.total, z.longest)
	}
}
