package sweep

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/traces"
)

// Shard selects the configs whose Index mod Count is Index: shard i of n.
// The zero Shard (and 0/1) is the whole sweep.
type Shard struct {
	Index, Count int
}

// ParseShard parses "i/n" in decimal digits with 0 ≤ i < n; "" is the
// whole sweep.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{0, 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := parseDigits(a)
	n, err2 := parseDigits(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want i/n in digits with 0 ≤ i < n, e.g. 0/4", s)
	}
	return Shard{i, n}, nil
}

// parseDigits parses a count of decimal digits only: strconv.Atoi alone
// would also take a sign.
func parseDigits(s string) (int, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a number in digits", s)
	}
	return strconv.Atoi(s)
}

func (s Shard) norm() Shard {
	if s.Count < 1 {
		return Shard{0, 1}
	}
	return s
}

// String formats the shard as "i/n".
func (s Shard) String() string {
	s = s.norm()
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// Contains reports whether the config with this canonical index belongs
// to the shard.
func (s Shard) Contains(index int) bool {
	s = s.norm()
	return index%s.Count == s.Index
}

// FileName is the conventional results file name of the shard:
// sweep.parquet for the whole sweep, sweep-shard-I-of-N.parquet otherwise.
func (s Shard) FileName() string {
	s = s.norm()
	if s.Count == 1 {
		return "sweep.parquet"
	}
	return fmt.Sprintf("sweep-shard-%d-of-%d.parquet", s.Index, s.Count)
}

// Merge combines the results of the shards of one sweep: they must come
// from the same spec, trace (its rows and its input files by checksum)
// and settings, have the same shard count, and
// together hold every shard exactly once and every config exactly once.
// The merged rows are re-ranked (Rank recomputes the Pareto fronts) and
// the result is the whole sweep (shard 0/1), equal to an unsharded run.
func Merge(parts []*Results) (*Results, error) {
	names := make([]string, len(parts))
	for k := range parts {
		names[k] = fmt.Sprintf("shard %d", k)
	}
	return merge(parts, names)
}

// merge is Merge, naming parts[k] names[k] in errors.
func merge(parts []*Results, names []string) (*Results, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("merge: no shards")
	}
	m0 := parts[0].Meta
	n := m0.Shard.norm().Count
	// seen and have hold what the parts give, not what their metadata
	// counts: a shard count or config total from a file may be any int.
	seen := map[int]int{} // shard index → the part that holds it
	// Each part is held against the first to name the trace's files (one
	// written before they were recorded names none), or the first: they
	// agree on the rest, checked as that part was taken.
	ref := 0
	for k, p := range parts {
		m := p.Meta
		if d := Differs(parts[ref].Meta, m); d != "" {
			return nil, fmt.Errorf("merge: %s is of another sweep than %s: %s", names[k], names[ref], d)
		}
		if m.Shard.norm().Count != n {
			return nil, fmt.Errorf("merge: %s is shard %s, but %s is one of %d", names[k], m.Shard, names[0], n)
		}
		if len(parts[ref].Meta.TraceChecksums) == 0 && len(m.TraceChecksums) > 0 {
			ref = k
		}
		if j, dup := seen[m.Shard.norm().Index]; dup {
			return nil, fmt.Errorf("merge: shard %s given twice: %s and %s", m.Shard, names[j], names[k])
		}
		seen[m.Shard.norm().Index] = k
	}
	if len(seen) < n {
		var missing []string
		for i := 0; i < n && len(missing) < maxListed; i++ {
			if _, ok := seen[i]; !ok {
				missing = append(missing, Shard{i, n}.String())
			}
		}
		if more := n - len(seen) - len(missing); more > 0 {
			missing = append(missing, fmt.Sprintf("and %d more", more))
		}
		return nil, fmt.Errorf("merge: incomplete: shard %s missing", strings.Join(missing, ", "))
	}
	out := &Results{Meta: m0}
	out.Meta.Shard = Shard{0, 1}
	out.Meta.TraceChecksums = maps.Clone(parts[ref].Meta.TraceChecksums)
	have := map[int64]bool{}
	for k, p := range parts {
		for _, r := range p.Rows {
			switch {
			case r.Index < 0 || r.Index >= int64(m0.TotalConfigs):
				return nil, fmt.Errorf("merge: %s (shard %s): config index %d outside [0, %d)", names[k], p.Meta.Shard, r.Index, m0.TotalConfigs)
			case !p.Meta.Shard.Contains(int(r.Index)):
				return nil, fmt.Errorf("merge: %s (shard %s) holds config %d, which belongs to shard %d/%d", names[k], p.Meta.Shard, r.Index, int(r.Index)%n, n)
			case have[r.Index]: // only within one part: each holds its own shard's configs
				return nil, fmt.Errorf("merge: %s (shard %s) holds config %d twice", names[k], p.Meta.Shard, r.Index)
			}
			have[r.Index] = true
			out.Rows = append(out.Rows, r)
		}
	}
	for i := 0; i < m0.TotalConfigs; i++ {
		if !have[int64(i)] {
			return nil, fmt.Errorf("merge: incomplete: config %d (shard %d/%d) missing", i, i%n, n)
		}
	}
	slices.SortFunc(out.Rows, func(a, b Row) int { return int(a.Index - b.Index) })
	Rank(out.Rows)
	return out, nil
}

// maxListed is how many missing shards an error lists at most.
const maxListed = 20

// MergeFiles reads shard files and merges them into the whole sweep.
func MergeFiles(shards []string) (*Results, error) {
	var parts []*Results
	for _, p := range shards {
		r, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		parts = append(parts, r)
	}
	return merge(parts, shards)
}

// inputFiles lists input checksums as an error shows them: "in.csv
// sha256:0123456789ab…, ...".
func inputFiles(sums map[string]string) string {
	var s []string
	for _, f := range slices.Sorted(maps.Keys(sums)) {
		s = append(s, fmt.Sprintf("%s sha256:%.12s…", f, traces.SHA256Hex(sums[f])))
	}
	return strings.Join(s, ", ")
}

// Differs says how the sweep b was run differs from a: another spec,
// trace, input files, settings or config count; "" when the two are
// results of one sweep (whole or sharded). Merge holds each shard against
// the others with it.
func Differs(a, b Meta) string {
	switch {
	case a.SpecSHA256 != b.SpecSHA256:
		return fmt.Sprintf("another spec (sha256 %.12s…, not %.12s…)", b.SpecSHA256, a.SpecSHA256)
	case a.TraceSHA256 != b.TraceSHA256:
		return fmt.Sprintf("another trace (sha256 %.12s…, not %.12s…)", b.TraceSHA256, a.TraceSHA256)
	case len(a.TraceChecksums) > 0 && len(b.TraceChecksums) > 0 && !traces.SameInputs(a.TraceChecksums, b.TraceChecksums):
		return fmt.Sprintf("other input files (%s, not %s)", inputFiles(b.TraceChecksums), inputFiles(a.TraceChecksums))
	case a.Settings != b.Settings:
		return fmt.Sprintf("other settings (%q, not %q)", b.Settings, a.Settings)
	case a.TotalConfigs != b.TotalConfigs:
		return fmt.Sprintf("another config count (%d, not %d)", b.TotalConfigs, a.TotalConfigs)
	}
	return ""
}
