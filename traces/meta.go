package traces

import (
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
)

// Meta is the file-level metadata of a trace: every controlled variable of
// the measurement, so two traces can be compared only when they should be.
type Meta struct {
	Source        string // e.g. "azure-2023-conv", "synthetic", "live", "simulated"
	Model         string
	WeightVersion string
	Precision     string
	Engine        string
	EngineArgs    string
	Device        string
	BatchPolicy   string
	ToolVersion   string
	BlockSize     int               // tokens per prefix hash block; 0 = no hashes
	Checksums     map[string]string // input file name -> "sha256:..."
	Extra         map[string]string // anything else, e.g. arrival process, seed
	// Unknown holds servesim.* keys this version does not know (a newer
	// one may add some), without the prefix, so a rewrite keeps them.
	Unknown map[string]string
}

const metaPrefix = "servesim."

// metaString is one of Meta's plain string fields and its key.
type metaString struct {
	key string
	val *string
}

// stringFields lists m's plain string fields with their keys, in the
// order they are written: toKV and metaFromKV both go by it, so a field
// is read under the key it is written with.
func (m *Meta) stringFields() []metaString {
	return []metaString{
		{"source", &m.Source}, {"model", &m.Model}, {"weight_version", &m.WeightVersion},
		{"precision", &m.Precision}, {"engine", &m.Engine}, {"engine_args", &m.EngineArgs},
		{"device", &m.Device}, {"batch_policy", &m.BatchPolicy}, {"tool_version", &m.ToolVersion},
	}
}

// stringField returns the plain string field named key, or nil.
func (m *Meta) stringField(key string) *string {
	for _, f := range m.stringFields() {
		if f.key == key {
			return f.val
		}
	}
	return nil
}

// toKV flattens m into Arrow schema metadata keys.
func (m *Meta) toKV() (keys, values []string) {
	put := func(k, v string) {
		keys = append(keys, metaPrefix+k)
		values = append(values, v)
	}
	// An empty field is the field unset; a map entry is there even when
	// its value is empty.
	add := func(k, v string) {
		if v != "" {
			put(k, v)
		}
	}
	for _, f := range m.stringFields() {
		add(f.key, *f.val)
	}
	if m.BlockSize > 0 {
		add("block_size", strconv.Itoa(m.BlockSize))
	}
	for _, k := range sortedKeys(m.Checksums) {
		put("checksum."+k, m.Checksums[k])
	}
	for _, k := range sortedKeys(m.Extra) {
		put("x."+k, m.Extra[k])
	}
	// A key this version does not know is written back as read.
	for _, k := range sortedKeys(m.Unknown) {
		put(k, m.Unknown[k])
	}
	return keys, values
}

// metaFromKV is the inverse of toKV. Keys without the prefix belong to
// other tools and are ignored; a key given twice is an error, since which
// value was meant is unknown.
func metaFromKV(keys, values []string) (Meta, error) {
	var m Meta
	seen := make(map[string]bool, len(keys))
	for i, k := range keys {
		if seen[k] {
			return m, fmt.Errorf("metadata %s is given twice", k)
		}
		seen[k] = true
		v := values[i]
		name, ok := strings.CutPrefix(k, metaPrefix)
		if !ok {
			continue
		}
		if f := m.stringField(name); f != nil {
			*f = v
			continue
		}
		switch {
		case name == "block_size":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return m, fmt.Errorf("metadata %s%s: want a non-negative integer, got %q", metaPrefix, name, v)
			}
			if err := checkBlockSize(n); err != nil {
				return m, err
			}
			m.BlockSize = n
		case strings.HasPrefix(name, "checksum."):
			m.SetChecksum(strings.TrimPrefix(name, "checksum."), v)
		case strings.HasPrefix(name, "x."):
			m.Set(strings.TrimPrefix(name, "x."), v)
		default:
			if m.Unknown == nil {
				m.Unknown = map[string]string{}
			}
			m.Unknown[name] = v
		}
	}
	return m, nil
}

// checkBlockSize refuses a block size a trace may not carry: reading
// refuses it, so writing must too.
func checkBlockSize(n int) error {
	switch {
	case n < 0:
		return fmt.Errorf("metadata %sblock_size: %d: want a block size in [0, %d]", metaPrefix, n, MaxBlockSize)
	case n > MaxBlockSize:
		// A block past any prompt never fills, and the simulator would
		// size its affinity cache to nothing.
		return fmt.Errorf("metadata %sblock_size: %d tokens is past any prompt: want a block size in [0, %d]", metaPrefix, n, MaxBlockSize)
	}
	return nil
}

// Set records an extra controlled variable.
func (m *Meta) Set(key, value string) {
	if m.Extra == nil {
		m.Extra = map[string]string{}
	}
	m.Extra[key] = value
}

// SetChecksum records the checksum of an input file.
func (m *Meta) SetChecksum(file, sum string) {
	if m.Checksums == nil {
		m.Checksums = map[string]string{}
	}
	m.Checksums[file] = sum
}

// Clone returns a deep copy.
func (m Meta) Clone() Meta {
	c := m
	c.Checksums, c.Extra, c.Unknown = nil, nil, nil
	for k, v := range m.Checksums {
		c.SetChecksum(k, v)
	}
	for k, v := range m.Extra {
		c.Set(k, v)
	}
	c.Unknown = maps.Clone(m.Unknown)
	return c
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
