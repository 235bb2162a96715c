package sim

import "math/bits"

// blockIndex maps the keys of cached KV blocks to their slab slots. It is
// a hash table with open addressing and linear probing, kept at most half
// full, that deletes by shifting the entries that follow back (no
// tombstones), so probes stay short however much the cache churns. A
// prefix-cached simulation looks a key up, adds and evicts one for nearly
// every block of every prompt; replacing Go's map with this index cut
// BenchmarkMooncake's time by 28% (BENCHMARKS.md).
type blockIndex struct {
	e     []indexEntry
	shift uint // 64 − log2(len(e))
	n     int
}

type indexEntry struct {
	key  uint64
	slot int32 // slab slot + 1; 0 marks an empty entry
}

// newBlockIndex returns an empty index.
func newBlockIndex() *blockIndex {
	x := &blockIndex{}
	x.resize(64)
	return x
}

// resize rehashes every key into a table of size entries (a power of two).
func (x *blockIndex) resize(size int) {
	old := x.e
	x.e, x.shift, x.n = make([]indexEntry, size), uint(64-bits.TrailingZeros(uint(size))), 0
	for _, e := range old {
		if e.slot != 0 {
			x.put(e.key, e.slot-1)
		}
	}
}

// home is the entry key k probes from (Fibonacci hashing: the top bits of
// a multiplication, good for any keys, not only mixed ones).
func (x *blockIndex) home(k uint64) int { return int((k * 0x9e3779b97f4a7c15) >> x.shift) }

func (x *blockIndex) len() int { return x.n }

// get returns the slot of k.
func (x *blockIndex) get(k uint64) (int32, bool) {
	mask := len(x.e) - 1
	for i := x.home(k); ; i = (i + 1) & mask {
		switch e := &x.e[i]; {
		case e.slot == 0:
			return 0, false
		case e.key == k:
			return e.slot - 1, true
		}
	}
}

// put adds k with slot; k must be absent.
func (x *blockIndex) put(k uint64, slot int32) {
	if 2*(x.n+1) > len(x.e) {
		x.resize(2 * len(x.e))
	}
	mask := len(x.e) - 1
	i := x.home(k)
	for x.e[i].slot != 0 {
		i = (i + 1) & mask
	}
	x.e[i] = indexEntry{key: k, slot: slot + 1}
	x.n++
}

// del removes k if present. Each later entry of the probe run moves back
// into the hole when the hole lies between its home and where it sits, so
// every key stays reachable from its home without gaps.
func (x *blockIndex) del(k uint64) {
	mask := len(x.e) - 1
	i := x.home(k)
	for x.e[i].key != k || x.e[i].slot == 0 {
		if x.e[i].slot == 0 {
			return
		}
		i = (i + 1) & mask
	}
	x.n--
	for j := i; ; {
		x.e[i].slot = 0
		for {
			j = (j + 1) & mask
			if x.e[j].slot == 0 {
				return
			}
			// The entry at j may fill the hole at i unless its home lies
			// cyclically in (i, j].
			if h := x.home(x.e[j].key); (j-h)&mask >= (j-i)&mask {
				x.e[i] = x.e[j]
				i = j
				break
			}
		}
	}
}

// each calls f with every slot in the index.
func (x *blockIndex) each(f func(slot int32)) {
	for _, e := range x.e {
		if e.slot != 0 {
			f(e.slot - 1)
		}
	}
}
