package calibrate

import (
	"encoding/json"
	"math"
	"testing"
)

// FuzzParseReportedKV: a run trace's kv_reported either fails to parse,
// or is a capacity a plan can use (tokens 1 to 2^31-1, blocks × block
// size = tokens when blocks are counted, utilization in [0, 1]) that
// writes back as JSON and parses to itself. The seed corpus is in
// testdata/fuzz/FuzzParseReportedKV.
func FuzzParseReportedKV(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		kv, err := ParseReportedKV(in)
		if err != nil {
			return
		}
		if !json.Valid([]byte(in)) {
			t.Fatalf("%q: not one JSON value, yet accepted as %+v", in, *kv)
		}
		if kv.Tokens <= 0 || kv.Tokens > math.MaxInt32 || kv.Blocks < 0 || kv.BlockSize < 0 ||
			(kv.Blocks > 0 && (kv.Blocks > kv.Tokens || int64(kv.BlockSize) > kv.Tokens || kv.Blocks*int64(kv.BlockSize) != kv.Tokens)) {
			t.Fatalf("%q: accepted %+v: want tokens = blocks × block_size", in, *kv)
		}
		b, err := json.Marshal(kv)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseReportedKV(string(b))
		if err != nil || *again != *kv {
			t.Fatalf("%q: %+v wrote %s, which parsed as %+v, %v", in, *kv, b, again, err)
		}
	})
}
