package sim

import "fmt"

// blockManager is the paged KV cache of one device: total blocks of
// blockSize tokens each. Blocks come in two kinds:
//
//   - private blocks hold KV that no other request can reuse (decode tokens,
//     partial prompt blocks, prompts without hashes). They are anonymous:
//     the manager counts them and each sequence knows how many it holds,
//     so a pure-decode stretch of k steps allocates its blocks with one
//     call instead of one per sequence per step.
//   - cached blocks hold a full prompt block identified by its chained
//     hash. They are reference counted; at refcount 0 they stay cached
//     (reusable by a later request with the same prefix) and count as free
//     until an allocation evicts them, least recently released first.
//
// Invariant (checked by check): freeAnon + evictable + private + inUse == total.
type blockManager struct {
	total     int
	freeAnon  int // free blocks holding nothing reusable
	private   int // allocated private blocks
	inUse     int // cached blocks with refcount > 0
	evictable int // cached blocks with refcount 0 (free, reusable)

	index     *blockIndex // hash -> slot in slab; nil without prefix caching
	slab      []cachedBlock
	freeSlots []int32
	lruHead   int32 // least recently released evictable block, -1 = none
	lruTail   int32

	lookups, hits, evictions int64
	// gen changes whenever a peek result could: a key added or evicted, a
	// refcount moving between 0 and 1.
	gen uint64
}

type cachedBlock struct {
	key        uint64
	ref        int32
	prev, next int32 // evictable list links, -1 = none
}

func newBlockManager(total int, caching bool) *blockManager {
	m := &blockManager{total: total, freeAnon: total, lruHead: -1, lruTail: -1}
	if caching {
		m.index = newBlockIndex()
	}
	return m
}

// free is the number of blocks an allocation can get (evicting cached ones).
func (m *blockManager) free() int { return m.freeAnon + m.evictable }

// used is the number of blocks referenced by some sequence.
func (m *blockManager) used() int { return m.private + m.inUse }

// takeFree removes one free block, evicting the least recently released
// cached block when no anonymous block is left. The caller checked free().
func (m *blockManager) takeFree() {
	if m.freeAnon > 0 {
		m.freeAnon--
		return
	}
	i := m.lruHead
	b := &m.slab[i]
	m.unlink(i)
	m.index.del(b.key)
	m.gen++
	m.freeSlots = append(m.freeSlots, i)
	m.evictable--
	m.evictions++
}

// allocPrivate takes n private blocks.
func (m *blockManager) allocPrivate(n int) error {
	if n < 0 || n > m.free() {
		return fmt.Errorf("sim: internal: allocating %d KV blocks with %d free", n, m.free())
	}
	a := min(n, m.freeAnon)
	m.freeAnon -= a
	for i := a; i < n; i++ {
		m.takeFree()
	}
	m.private += n
	return nil
}

// freePrivate returns n private blocks; more than are allocated is a double free.
func (m *blockManager) freePrivate(n int) error {
	if n < 0 || n > m.private {
		return fmt.Errorf("sim: internal: double free: releasing %d private KV blocks with %d allocated", n, m.private)
	}
	m.private -= n
	m.freeAnon += n
	return nil
}

// peek counts the leading keys present in the cache, and how many of those
// are at refcount 0 (acquiring them takes free blocks). It changes nothing.
func (m *blockManager) peek(keys []uint64) (hits, evictableHits int) {
	if m.index == nil {
		return 0, 0
	}
	for _, k := range keys {
		i, ok := m.index.get(k)
		if !ok {
			break
		}
		hits++
		if m.slab[i].ref == 0 {
			evictableHits++
		}
	}
	return hits, evictableHits
}

// acquire references the cached block with key, creating it (from a free
// block) when absent. It reports whether the block was already cached.
func (m *blockManager) acquire(key uint64) (slot int32, hit bool, err error) {
	if i, ok := m.index.get(key); ok {
		b := &m.slab[i]
		if b.ref == 0 {
			m.unlink(i)
			m.evictable--
			m.inUse++
			m.gen++
		}
		b.ref++
		return i, true, nil
	}
	if m.free() == 0 {
		return -1, false, fmt.Errorf("sim: internal: caching a KV block with none free")
	}
	m.takeFree()
	var i int32
	if n := len(m.freeSlots); n > 0 {
		i = m.freeSlots[n-1]
		m.freeSlots = m.freeSlots[:n-1]
	} else {
		i = int32(len(m.slab))
		m.slab = append(m.slab, cachedBlock{})
	}
	m.slab[i] = cachedBlock{key: key, ref: 1, prev: -1, next: -1}
	m.index.put(key, i)
	m.inUse++
	m.gen++
	return i, false, nil
}

// release drops one reference; at zero the block stays cached as the most
// recently released evictable block.
func (m *blockManager) release(i int32) error {
	if i < 0 || int(i) >= len(m.slab) || m.slab[i].ref <= 0 {
		return fmt.Errorf("sim: internal: double free of cached KV block %d", i)
	}
	b := &m.slab[i]
	b.ref--
	if b.ref > 0 {
		return nil
	}
	m.inUse--
	m.evictable++
	m.gen++
	b.prev, b.next = m.lruTail, -1
	if m.lruTail >= 0 {
		m.slab[m.lruTail].next = i
	} else {
		m.lruHead = i
	}
	m.lruTail = i
	return nil
}

func (m *blockManager) unlink(i int32) {
	b := &m.slab[i]
	if b.prev >= 0 {
		m.slab[b.prev].next = b.next
	} else {
		m.lruHead = b.next
	}
	if b.next >= 0 {
		m.slab[b.next].prev = b.prev
	} else {
		m.lruTail = b.prev
	}
	b.prev, b.next = -1, -1
}

// check verifies the manager's own accounting.
func (m *blockManager) check() error {
	if m.freeAnon < 0 || m.private < 0 || m.inUse < 0 || m.evictable < 0 {
		return fmt.Errorf("negative block count: freeAnon=%d private=%d inUse=%d evictable=%d", m.freeAnon, m.private, m.inUse, m.evictable)
	}
	if s := m.freeAnon + m.evictable + m.private + m.inUse; s != m.total {
		return fmt.Errorf("blocks not conserved: freeAnon %d + evictable %d + private %d + cached in use %d = %d, want %d",
			m.freeAnon, m.evictable, m.private, m.inUse, s, m.total)
	}
	if m.index != nil {
		n, ev := 0, 0
		for i := m.lruHead; i >= 0; i = m.slab[i].next {
			if m.slab[i].ref != 0 {
				return fmt.Errorf("cached block %d on the eviction list with refcount %d", i, m.slab[i].ref)
			}
			ev++
		}
		m.index.each(func(i int32) {
			if m.slab[i].ref > 0 {
				n++
			}
		})
		if n != m.inUse || ev != m.evictable || m.index.len() != m.inUse+m.evictable {
			return fmt.Errorf("cache index: %d referenced (want %d), %d evictable (want %d), %d indexed", n, m.inUse, ev, m.evictable, m.index.len())
		}
	}
	return nil
}
