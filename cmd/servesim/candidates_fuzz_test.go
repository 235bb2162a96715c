package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/jsonfile"
	"github.com/servesim/servesim/verify"
)

// FuzzParseCandidates: parseCandidates never panics; an error names the
// file on every line; what it accepts holds at least one candidate, each
// with a unique rank ≥ 1, an index ≥ 0 and a rate scale a replay can
// run at, and survives encoding and
// parsing again unchanged. The seeds (testdata/fuzz/FuzzParseCandidates)
// are the candidates.json of simulate --sweep --top 3 and broken
// variants.
func FuzzParseCandidates(f *testing.F) {
	const name = "out/candidates.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := parseCandidates(data, name)
		if err != nil {
			for _, e := range jsonfile.Lines(err) {
				if !strings.HasPrefix(e.Error(), name+": ") {
					t.Fatalf("error does not start with the file name: %q", e)
				}
			}
			return
		}
		if len(cf.Candidates) == 0 {
			t.Fatal("accepted no candidates")
		}
		ranks := map[int64]bool{}
		for _, c := range cf.Candidates {
			if c.Rank < 1 || ranks[c.Rank] || c.Index < 0 {
				t.Fatalf("accepted rank %d (seen: %v), index %d", c.Rank, ranks[c.Rank], c.Index)
			}
			if _, ok := verify.TimeScaleOf(c.RateScale); !ok {
				t.Fatalf("accepted rate_scale %v of rank %d", c.RateScale, c.Rank)
			}
			ranks[c.Rank] = true
		}
		enc, err := json.Marshal(cf)
		if err != nil {
			t.Fatalf("encoding accepted candidates: %v", err)
		}
		again, err := parseCandidates(enc, name)
		if err != nil {
			t.Fatalf("parsing accepted candidates encoded again: %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(cf, again) {
			t.Fatalf("encoding and parsing again changed the candidates:\n%s", enc)
		}
	})
}
