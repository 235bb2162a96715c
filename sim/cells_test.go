package sim

import (
	"math/rand/v2"
	"testing"
)

// walkFindSlot is llama_kv_cache_find_slot's search as llama.cpp writes
// it, one cell at a time: the head and whether n free cells were found.
func walkFindSlot(used []bool, head, inUse, n int) (int, bool) {
	size := len(used)
	if head > inUse+2*n {
		head = 0
	}
	for tested := 0; ; {
		if head+n > size {
			tested += size - head
			head = 0
			continue
		}
		free := true
		for i := range n {
			if used[head+i] {
				free = false
				head += i + 1
				tested += i + 1
				break
			}
		}
		if free {
			return head, true
		}
		if tested >= size {
			return head, false
		}
	}
}

// place's jumps over used cells leave the head where llama.cpp's walk
// leaves it, placed or not, on caches fragmented by random frees.
func TestPlaceMatchesCellWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{64, 100, 257, 1000} {
		const slots = 6
		c := NewSlotCache(slots, size)
		used := make([]bool, size)
		fails := 0
		for op := range 5000 {
			slot := rng.IntN(slots)
			if rng.IntN(4) == 0 {
				// Free the tail of a slot, as a new request reusing it does.
				from := int32(0)
				if h := c.Held(slot); h > 0 {
					from = rng.Int32N(h + 1)
				}
				for _, i := range c.cells[slot][from:] {
					used[i] = false
				}
				c.remove(slot, from)
				continue
			}
			n := 1 + rng.IntN(min(size, 40))
			for range n {
				c.batch = append(c.batch, slot)
			}
			wantHead, ok := walkFindSlot(used, c.head, c.used, n)
			before := c.used
			c.place()
			if ok {
				for i := wantHead; i < wantHead+n; i++ {
					used[i] = true
				}
				wantHead += n
			} else {
				fails++
			}
			if c.head != wantHead || (c.used > before) != ok {
				t.Fatalf("size %d, op %d: %d cells: head %d, placed %v; the walk: head %d, placed %v", size, op, n, c.head, c.used > before, wantHead, ok)
			}
			top := 0
			for i, u := range used {
				if u {
					top = i + 1
				}
			}
			if c.top != top {
				t.Fatalf("size %d, op %d: top %d, want %d", size, op, c.top, top)
			}
		}
		if fails == 0 {
			t.Errorf("size %d: no placement failed; the test never reached a full cache", size)
		}
	}
}
