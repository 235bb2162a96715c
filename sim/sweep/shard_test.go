package sweep

import (
	"math"
	"strings"
	"testing"
)

// A shard count or config total that a results file says may be any int
// that ParseShard and the metadata accept: merge reports what is missing
// without allocating one flag per shard or config, which panicked
// (makeslice: len out of range) or ran out of memory.
func TestMergeHugeCounts(t *testing.T) {
	shard, err := ParseShard("0/9223372036854775807")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		meta Meta
		want string
	}{
		{"shard count", Meta{Shard: shard, TotalConfigs: 1},
			"merge: incomplete: shard 1/9223372036854775807, 2/9223372036854775807"},
		{"shard count", Meta{Shard: shard, TotalConfigs: 1}, ", and 9223372036854775786 more missing"},
		{"config total", Meta{Shard: Shard{0, 1}, TotalConfigs: math.MaxInt}, "merge: incomplete: config 1 (shard 0/1) missing"},
	} {
		_, err := Merge([]*Results{{Meta: tc.meta, Rows: []Row{{Index: 0}}}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A shard is digits: a sign or a space, which strconv.Atoi or trimming
// let through, is refused saying what is expected.
func TestParseShardDigitsOnly(t *testing.T) {
	for _, in := range []string{"+1/4", "1/+4", "-0/4", " 1 / 4 ", "1 /4", "\t2/3\n"} {
		s, err := ParseShard(in)
		if err == nil {
			t.Errorf("ParseShard(%q) = %v, want an error", in, s)
		} else if !strings.Contains(err.Error(), "want i/n") || !strings.Contains(err.Error(), "digits") {
			t.Errorf("ParseShard(%q): %v, want it to say i/n in digits", in, err)
		}
	}
	for in, want := range map[string]Shard{"1/4": {1, 4}, "01/04": {1, 4}, "0/1": {0, 1}} {
		if s, err := ParseShard(in); err != nil || s != want {
			t.Errorf("ParseShard(%q) = %v, %v, want %v", in, s, err, want)
		}
	}
}
