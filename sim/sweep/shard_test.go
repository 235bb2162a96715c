package sweep

import (
	"fmt"
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

// Shards fed other input files are not one sweep: merge refuses them,
// naming both; a renamed file, or a shard written before the checksums
// were recorded, merges, and the merged results keep the checksums.
func TestMergeChecksInputFiles(t *testing.T) {
	part := func(i int, sums map[string]string) *Results {
		return &Results{Meta: Meta{Shard: Shard{i, 2}, TotalConfigs: 2, TraceSHA256: "ab", TraceChecksums: sums}, Rows: []Row{{Index: int64(i)}}}
	}
	a := map[string]string{"in.csv": "sha256:cd"}
	_, err := Merge([]*Results{part(0, a), part(1, map[string]string{"other.csv": "sha256:ef"})})
	if err == nil || !strings.Contains(err.Error(), "in.csv") || !strings.Contains(err.Error(), "other.csv") {
		t.Errorf("other input files: err = %v, want an error naming in.csv and other.csv", err)
	}
	for _, b := range []map[string]string{{"moved.csv": "sha256:cd"}, {"in.csv": "cd"}} {
		if _, err := Merge([]*Results{part(0, a), part(1, b)}); err != nil {
			t.Errorf("%v and %v: %v, want them merged", a, b, err)
		}
	}
	m, err := Merge([]*Results{part(0, nil), part(1, a)})
	if err != nil || m.Meta.TraceChecksums["in.csv"] != "sha256:cd" {
		t.Errorf("a shard without checksums: merged %v, %v; want in.csv's kept", m, err)
	}
}

// Merge refuses a shard of another sweep with what Differs says of it,
// naming the shard and the one held against it: the first to name the
// input files, or the first.
func TestMergeSaysWhatDiffers(t *testing.T) {
	base := Meta{SpecSHA256: "5e", TraceSHA256: "ab", Settings: "s", TotalConfigs: 3}
	sums := map[string]string{"in.csv": "sha256:cd"}
	for _, tc := range []struct {
		name   string
		sumsOn int           // the shard of 0 and 1 that names input files
		change func(m *Meta) // of shard 2
	}{
		{"spec", 0, func(m *Meta) { m.SpecSHA256 = "f0" }},
		{"trace", 0, func(m *Meta) { m.TraceSHA256 = "f0" }},
		{"settings", 1, func(m *Meta) { m.Settings = "t" }},
		{"config count", 0, func(m *Meta) { m.TotalConfigs = 4 }},
		{"input files", 1, func(m *Meta) { m.TraceChecksums = map[string]string{"other.csv": "sha256:ef"} }},
	} {
		parts := make([]*Results, 3)
		for i := range parts {
			m := base
			m.Shard = Shard{i, 3}
			if i == tc.sumsOn {
				m.TraceChecksums = sums
			}
			parts[i] = &Results{Meta: m, Rows: []Row{{Index: int64(i)}}}
		}
		tc.change(&parts[2].Meta)
		d := Differs(parts[tc.sumsOn].Meta, parts[2].Meta)
		ref := fmt.Sprintf("shard %d", tc.sumsOn) // as Merge names parts
		_, err := Merge(parts)
		if d == "" || err == nil || !strings.Contains(err.Error(), d) ||
			!strings.Contains(err.Error(), "shard 2") || !strings.Contains(err.Error(), ref) {
			t.Errorf("%s: err = %v, want shard 2 and %s named with %q", tc.name, err, ref, d)
		}
	}
}
