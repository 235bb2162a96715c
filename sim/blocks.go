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
//   - cached blocks hold a full block (of a prompt, or of a preempted
//     request that will recompute it) identified by its chained
//     hash. They are reference counted; at refcount 0 they stay cached
//     (reusable by a later request with the same prefix) and count as free
//     until an allocation reaches them in the free queue and evicts them.
//
// Free blocks wait in one queue in the order they were freed, as in vLLM:
// an allocation takes the longest-free block, evicting it if it is cached.
// Runs of anonymous free blocks sit in the queue as one entry with a count,
// so a stretch of decode steps takes or returns its blocks in one call.
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
	lruHead   int32 // the free queue: its longest-free entry, -1 = empty
	lruTail   int32

	lookups, hits, evictions int64
	// gen changes whenever a peek result could: a key added or evicted, a
	// refcount moving between 0 and 1.
	gen uint64
}

// cachedBlock is a slab entry: a cached block, or (anon > 0) a run of
// anonymous free blocks in the free queue.
type cachedBlock struct {
	key        uint64
	ref        int32
	anon       int32 // > 0: this many anonymous free blocks, not a cached block
	dups       int32 // holders that computed it into a private block of their own
	prev, next int32 // free queue links, -1 = none
}

func newBlockManager(total int, caching bool) *blockManager {
	m := &blockManager{total: total, lruHead: -1, lruTail: -1}
	if caching {
		m.index = newBlockIndex()
	}
	m.pushAnon(total) // never used: first to go
	return m
}

// newSlot returns an unused slab slot.
func (m *blockManager) newSlot() int32 {
	if n := len(m.freeSlots); n > 0 {
		i := m.freeSlots[n-1]
		m.freeSlots = m.freeSlots[:n-1]
		return i
	}
	m.slab = append(m.slab, cachedBlock{})
	return int32(len(m.slab) - 1)
}

// pushAnon frees n anonymous blocks at the tail of the free queue.
func (m *blockManager) pushAnon(n int) {
	if n <= 0 {
		return
	}
	m.freeAnon += n
	if t := m.lruTail; t >= 0 && m.slab[t].anon > 0 {
		m.slab[t].anon += int32(n)
		return
	}
	i := m.newSlot()
	m.slab[i] = cachedBlock{anon: int32(n), prev: -1, next: -1}
	m.append(i)
}

// leadAnon is the number of blocks an allocation can take before it
// evicts a cached block.
func (m *blockManager) leadAnon() int {
	if h := m.lruHead; h >= 0 {
		return int(m.slab[h].anon)
	}
	return 0
}

// free is the number of blocks an allocation can get (evicting cached ones).
func (m *blockManager) free() int { return m.freeAnon + m.evictable }

// used is the number of blocks referenced by some sequence.
func (m *blockManager) used() int { return m.private + m.inUse }

// takeFree removes up to n blocks from the head of the free queue, all of
// an anonymous run's or one cached block, which it evicts, and returns how
// many it took. The caller checked free().
func (m *blockManager) takeFree(n int) int {
	i := m.lruHead
	b := &m.slab[i]
	if b.anon > 0 {
		t := min(n, int(b.anon))
		b.anon -= int32(t)
		m.freeAnon -= t
		if b.anon == 0 {
			m.unlink(i)
			m.freeSlots = append(m.freeSlots, i)
		}
		return t
	}
	m.unlink(i)
	m.index.del(b.key)
	m.gen++
	m.freeSlots = append(m.freeSlots, i)
	m.evictable--
	m.evictions++
	return 1
}

// allocPrivate takes n private blocks.
func (m *blockManager) allocPrivate(n int) error {
	if n < 0 || n > m.free() {
		return fmt.Errorf("sim: internal: allocating %d KV blocks with %d free", n, m.free())
	}
	for left := n; left > 0; {
		left -= m.takeFree(left)
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
	m.pushAnon(n)
	return nil
}

// adoptPrivate turns one private block into a cached block with key, held
// once: the block stays where it is, with the KV it holds.
func (m *blockManager) adoptPrivate(key uint64) (int32, error) {
	if m.private < 1 {
		return -1, fmt.Errorf("sim: internal: caching a private KV block with none allocated")
	}
	if _, ok := m.index.get(key); ok {
		return -1, fmt.Errorf("sim: internal: KV block key %x is cached twice", key)
	}
	i := m.newSlot()
	m.slab[i] = cachedBlock{key: key, ref: 1, prev: -1, next: -1}
	m.index.put(key, i)
	m.private--
	m.inUse++
	m.gen++
	return i, nil
}

// unkey turns cached block i, held only by its caller, back into a
// private block: its key leaves the cache, so no later lookup finds it.
func (m *blockManager) unkey(i int32) error {
	if i < 0 || int(i) >= len(m.slab) || m.slab[i].ref != 1 {
		return fmt.Errorf("sim: internal: uncaching KV block %d, which is not held exactly once", i)
	}
	m.index.del(m.slab[i].key)
	m.freeSlots = append(m.freeSlots, i)
	m.inUse--
	m.private++
	m.gen++
	return nil
}

// forget drops key from the cache when its block is free (refcount 0):
// the block stays where it is in the free queue, anonymous. A request
// that computes a block (rather than hitting it) takes a new one from
// the head of the free queue, as vLLM does; the stale copy holds
// nothing it can use.
func (m *blockManager) forget(key uint64) {
	if m.index == nil {
		return
	}
	i, ok := m.index.get(key)
	if !ok || m.slab[i].ref != 0 {
		return
	}
	m.index.del(key)
	m.evictable--
	m.freeAnon++
	m.gen++
	b := &m.slab[i]
	b.key, b.anon = 0, 1
	// Folded into an anonymous run before it, i leaves the queue, and
	// unlink joins that run with one after; else i takes in the one after.
	m.mergeAnon(b.prev, i)
	m.mergeAnon(i, m.slab[i].next)
}

// mergeAnon folds anonymous run j into run i before it when both are
// anonymous runs side by side in the free queue.
func (m *blockManager) mergeAnon(i, j int32) {
	if i < 0 || j < 0 || m.slab[i].anon == 0 || m.slab[j].anon == 0 {
		return
	}
	m.slab[i].anon += m.slab[j].anon
	m.slab[j].anon = 0
	m.unlink(j)
	m.freeSlots = append(m.freeSlots, j)
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
	m.takeFree(1)
	i := m.newSlot()
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
	m.append(i)
	return nil
}

// append puts entry i at the tail of the free queue.
func (m *blockManager) append(i int32) {
	b := &m.slab[i]
	b.prev, b.next = m.lruTail, -1
	if m.lruTail >= 0 {
		m.slab[m.lruTail].next = i
	} else {
		m.lruHead = i
	}
	m.lruTail = i
}

// unlink takes entry i out of the free queue. Anonymous runs it leaves
// side by side become one, so that leadAnon sees all of them.
func (m *blockManager) unlink(i int32) {
	b := &m.slab[i]
	prev, next := b.prev, b.next
	if prev >= 0 {
		m.slab[prev].next = next
	} else {
		m.lruHead = next
	}
	if next >= 0 {
		m.slab[next].prev = prev
	} else {
		m.lruTail = prev
	}
	b.prev, b.next = -1, -1
	m.mergeAnon(prev, next)
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
	n, ev, anon := 0, 0, 0
	for i := m.lruHead; i >= 0; i = m.slab[i].next {
		switch b := m.slab[i]; {
		case b.anon > 0:
			anon += int(b.anon)
		case b.ref != 0:
			return fmt.Errorf("cached block %d on the free queue with refcount %d", i, b.ref)
		default:
			ev++
		}
	}
	if anon != m.freeAnon {
		return fmt.Errorf("free queue holds %d anonymous blocks, want %d", anon, m.freeAnon)
	}
	if m.index != nil {
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
