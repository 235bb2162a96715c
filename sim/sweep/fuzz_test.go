package sweep

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseSpec: ParseSpec never panics on any input, and rejects or
// accepts it with a spec that has a strategy and whose axes are sweepable
// keys with values, none given twice. Seeds: testdata/fuzz/FuzzParseSpec
// (lists, ranges, sub-tables, single values, the replicas alias, cluster
// keys, rate_scale, prices and skip_if).
func FuzzParseSpec(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec(data, "")
		if err != nil || s == nil {
			return
		}
		if len(s.Strategies) == 0 {
			t.Fatal("accepted a spec with no strategy")
		}
		for _, a := range s.Axes {
			if _, ok := lookupKey(a.Key); !ok {
				t.Fatalf("accepted an unknown key %q", a.Key)
			}
			if len(a.Values) == 0 {
				t.Fatalf("accepted an empty axis %+v", a)
			}
			for i, v := range a.Values {
				for _, w := range a.Values[:i] {
					if v == w || same(a.Key, v, w) {
						t.Fatalf("accepted %s with %v and %v, one value given twice", a.Key, w, v)
					}
				}
			}
		}
	})
}

// FuzzParseShard: any string either fails with an error that quotes it,
// or is digits "i/n" giving a shard with 0 ≤ i < n that String writes as "i/n", which
// parses back to the same shard; "" is the whole sweep, 0/1. Its results
// alone merge, as the whole sweep, or are refused as incomplete, however
// large its count. Crashers found are kept in
// testdata/fuzz/FuzzParseShard.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{
		"", "0/1", "0/4", "3/4", "4/4", "-1/4", "1/0", "0/0", "0/-1", " 1 / 4 ", "+1/4", "01/04", "1/4/8", "1",
		"/", "1/", "/4", "0/9223372036854775807", "9223372036854775806/9223372036854775807", "0/9223372036854775808",
		"0x1/4", "1_0/20", "١/٤", "\t2/3\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseShard(in)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(in)) || s != (Shard{}) {
				t.Fatalf("ParseShard(%q) = %+v, %v: want the zero shard and an error quoting the input", in, s, err)
			}
			return
		}
		if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
			t.Fatalf("ParseShard(%q) = %+v: want 0 <= i < n", in, s)
		}
		if in == "" && s != (Shard{0, 1}) {
			t.Fatalf(`ParseShard("") = %+v, want 0/1`, s)
		}
		if i, n, _ := strings.Cut(in, "/"); in != "" && (strings.Trim(i, "0123456789") != "" || strings.Trim(n, "0123456789") != "") {
			t.Fatalf("ParseShard(%q) = %+v: want only digits either side of the /", in, s)
		}
		text := s.String()
		if want := strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count); text != want {
			t.Fatalf("ParseShard(%q) = %+v, written %q, want %q", in, s, text, want)
		}
		if back, err := ParseShard(text); err != nil || back != s {
			t.Fatalf("ParseShard(%q) = %+v, written %q, read back %+v, %v", in, s, text, back, err)
		}
		// The shard's results file alone, whatever its count, merges only
		// when it is the whole sweep, and otherwise names a missing shard.
		_, err = Merge([]*Results{{Meta: Meta{Shard: s, TotalConfigs: 1}, Rows: []Row{{Index: 0}}}})
		if s.Index == 0 && s.Count == 1 {
			if err != nil {
				t.Fatalf("merging shard %s alone: %v", s, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), "merge: incomplete: shard ") {
			t.Fatalf("merging shard %s alone: %v, want it incomplete", s, err)
		}
	})
}
