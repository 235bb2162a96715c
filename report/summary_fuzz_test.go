package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/jsonfile"
)

// FuzzParseSummary: ParseSummary never panics; an error names the file
// on every line; what it accepts is at least one result, each with a
// summary and a unique name that is no path, with counts ≥ 0; it survives
// encoding and parsing again unchanged, and the default report sections
// build from it. The seeds (testdata/fuzz/FuzzParseSummary) are
// summary.json files of simulate --out (one plan, a cluster, a KV
// out-of-memory stop) and broken variants.
func FuzzParseSummary(f *testing.F) {
	const name = "out/summary.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		results, err := ParseSummary(data, name)
		if err != nil {
			for _, e := range jsonfile.Lines(err) {
				if !strings.HasPrefix(e.Error(), name+": ") {
					t.Fatalf("error does not start with the file name: %q", e)
				}
			}
			return
		}
		if len(results) == 0 {
			t.Fatal("accepted no results")
		}
		names := map[string]bool{}
		for _, r := range results {
			if r == nil || r.Summary == nil || names[r.Name] || strings.ContainsAny(r.Name, `/\`) {
				t.Fatalf("accepted %+v (name seen: %v)", r, names[r.Name])
			}
			names[r.Name] = true
			s := r.Summary
			if s.Requests < 0 || s.Completed < 0 || s.Rejected < 0 || s.Completed+s.Rejected > s.Requests || s.KV.TotalBlocks < 0 {
				t.Fatalf("accepted counts %+v", s)
			}
		}
		enc, err := json.Marshal(results)
		if err != nil {
			t.Fatalf("encoding accepted results: %v", err)
		}
		again, err := ParseSummary(enc, name)
		if err != nil {
			t.Fatalf("parsing accepted results encoded again: %v\n%s", err, enc)
		}
		for _, r := range results {
			if len(r.Pools) == 0 {
				r.Pools = nil // omitempty: [] is written as nothing
			}
		}
		if !reflect.DeepEqual(results, again) {
			t.Fatalf("encoding and parsing again changed the results:\n%s", enc)
		}
		in := &Inputs{}
		for _, r := range results {
			in.Runs = append(in.Runs, resultRun(r))
		}
		if _, err := Build("fuzz", in); err != nil {
			t.Fatalf("the report cannot show accepted results: %v", err)
		}
	})
}
