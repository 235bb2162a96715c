package sim

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func TestBlockManagerPrivate(t *testing.T) {
	m := newBlockManager(10, false)
	if err := m.allocPrivate(7); err != nil {
		t.Fatal(err)
	}
	if err := m.allocPrivate(4); err == nil {
		t.Error("allocated 4 with 3 free")
	}
	if err := m.freePrivate(8); err == nil {
		t.Error("freed 8 of 7: double free not caught")
	}
	if err := m.freePrivate(7); err != nil || m.free() != 10 || m.used() != 0 {
		t.Errorf("after free: %v, free %d used %d", err, m.free(), m.used())
	}
	if err := m.check(); err != nil {
		t.Error(err)
	}
}

func TestBlockManagerPrefixLRU(t *testing.T) {
	m := newBlockManager(4, true)
	var slots []int32
	for _, k := range []uint64{1, 2, 3} {
		s, hit, err := m.acquire(k)
		if err != nil || hit {
			t.Fatalf("acquire %d: hit=%v err=%v", k, hit, err)
		}
		slots = append(slots, s)
	}
	if h, ev := m.peek([]uint64{1, 2, 9, 3}); h != 2 || ev != 0 {
		t.Errorf("peek = %d hits, %d evictable; want 2, 0", h, ev)
	}
	// Release 3, then 1, then 2: all stay cached, free again.
	for _, i := range []int{2, 0, 1} {
		if err := m.release(slots[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.release(slots[0]); err == nil {
		t.Error("double free of a cached block not caught")
	}
	if m.free() != 4 || m.used() != 0 {
		t.Fatalf("free %d used %d", m.free(), m.used())
	}
	if h, ev := m.peek([]uint64{1, 2, 3}); h != 3 || ev != 3 {
		t.Errorf("peek after release = %d, %d; want 3, 3", h, ev)
	}
	// Two private blocks: one anonymous, then evict the least recently
	// released cached block (key 3).
	if err := m.allocPrivate(2); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.index.get(3); ok {
		t.Error("key 3 (released first) should have been evicted")
	}
	if h, _ := m.peek([]uint64{1, 2}); h != 2 {
		t.Errorf("keys 1, 2 should still be cached, %d hit", h)
	}
	if s, hit, err := m.acquire(1); err != nil || !hit || s != slots[0] {
		t.Errorf("re-acquire 1: slot %d hit %v err %v", s, hit, err)
	}
	if err := m.check(); err != nil {
		t.Error(err)
	}
	if m.evictions != 1 {
		t.Errorf("evictions = %d", m.evictions)
	}
}

// The index answers like a Go map through heavy churn, growing and at its
// highest load, with keys that collide on their home entry (multiples of a large power
// of two hash alike in the low bits of some schemes) and random ones.
func TestBlockIndexMatchesMap(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  func(r *rand.Rand) uint64
	}{
		{"random", func(r *rand.Rand) uint64 { return r.Uint64() }},
		{"small", func(r *rand.Rand) uint64 { return uint64(r.IntN(300)) }},
		{"strided", func(r *rand.Rand) uint64 { return uint64(r.IntN(300)) << 40 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const max = 100 // keys held at most: the table grows to 256 entries
			r := rand.New(rand.NewPCG(1, 2))
			x, want := newBlockIndex(), map[uint64]int32{}
			for op := range 200_000 {
				k := tc.key(r)
				got, ok := x.get(k)
				w, wok := want[k]
				if ok != wok || (ok && got != w) {
					t.Fatalf("op %d: get(%d) = %d, %v; want %d, %v", op, k, got, ok, w, wok)
				}
				switch {
				case ok:
					x.del(k)
					delete(want, k)
				case len(want) < max:
					x.put(k, int32(op))
					want[k] = int32(op)
				}
				if x.len() != len(want) {
					t.Fatalf("op %d: %d keys, want %d", op, x.len(), len(want))
				}
			}
			n := 0
			x.each(func(slot int32) {
				n++
				if slot < 0 {
					t.Errorf("slot %d", slot)
				}
			})
			if n != len(want) {
				t.Errorf("each visited %d slots, want %d", n, len(want))
			}
		})
	}
}

// Free blocks leave in the order they were freed, as from vLLM's one free
// queue: a cached block freed before an anonymous one is evicted first, and
// re-using a cached block joins the anonymous runs on either side of it.
func TestBlockManagerFreeQueueOrder(t *testing.T) {
	m := newBlockManager(3, true)
	a, _, _ := m.acquire(1)
	if err := m.allocPrivate(2); err != nil { // the never-used blocks go first
		t.Fatal(err)
	}
	if err := errors.Join(m.freePrivate(1), m.release(a), m.freePrivate(1)); err != nil {
		t.Fatal(err)
	}
	// Queue: anonymous 1, cached key 1, anonymous 1.
	if m.leadAnon() != 1 || m.free() != 3 {
		t.Fatalf("lead anonymous %d, free %d; want 1, 3", m.leadAnon(), m.free())
	}
	if _, hit, err := m.acquire(1); err != nil || !hit {
		t.Fatalf("re-acquire key 1: hit %v, err %v", hit, err)
	}
	if m.leadAnon() != 2 {
		t.Errorf("after key 1 left the queue, the two anonymous runs lead with %d blocks, want 2", m.leadAnon())
	}
	if err := errors.Join(m.allocPrivate(1), m.release(a), m.freePrivate(1)); err != nil {
		t.Fatal(err)
	}
	// Queue: anonymous 1, cached key 1, anonymous 1. Two blocks: the first
	// anonymous one, then key 1, freed before the last.
	if err := m.allocPrivate(2); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.index.get(1); ok || m.evictions != 1 || m.leadAnon() != 1 {
		t.Errorf("key 1 cached %v, %d evictions, lead anonymous %d; want evicted once, 1 left", ok, m.evictions, m.leadAnon())
	}
	if err := m.check(); err != nil {
		t.Error(err)
	}
}

// A forgotten free cached block becomes anonymous where it stands in the
// free queue, merging with anonymous neighbours, so the blocks after it
// keep their turn; a block in use keeps its key.
func TestBlockManagerForget(t *testing.T) {
	m := newBlockManager(4, true)
	var slots []int32
	for _, k := range []uint64{1, 2, 3} {
		s, _, err := m.acquire(k)
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, s)
	}
	// Free queue: anon 1, key 1, key 2; key 3 held.
	for _, i := range []int{0, 1} {
		if err := m.release(slots[i]); err != nil {
			t.Fatal(err)
		}
	}
	m.forget(3) // held: stays
	m.forget(1)
	if h, _ := m.peek([]uint64{3}); h != 1 {
		t.Error("forget dropped a block in use")
	}
	if h, _ := m.peek([]uint64{1}); h != 0 {
		t.Error("key 1 still cached after forget")
	}
	if m.free() != 3 || m.leadAnon() != 2 || m.evictable != 1 {
		t.Errorf("free %d, leading anonymous %d, evictable %d; want 3, 2, 1", m.free(), m.leadAnon(), m.evictable)
	}
	if err := m.check(); err != nil {
		t.Error(err)
	}
	// The two anonymous blocks go before key 2 is evicted.
	if err := m.allocPrivate(2); err != nil || m.evictions != 0 {
		t.Errorf("alloc 2: %v, %d evictions; want none", err, m.evictions)
	}
	if h, _ := m.peek([]uint64{2}); h != 1 {
		t.Error("key 2 evicted before the forgotten block was used")
	}
	if err := m.check(); err != nil {
		t.Error(err)
	}
}
