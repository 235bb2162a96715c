package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// walkFindSlot is llama_kv_cache_find_slot's search as llama.cpp writes
// it, one cell at a time: the head, whether n free cells were found, and
// whether the search went round past the end.
func walkFindSlot(used []bool, head, inUse, n int) (h int, found, round bool) {
	size := len(used)
	if head > inUse+2*n {
		head = 0
	}
	for tested := 0; ; {
		if head+n > size {
			tested += size - head
			head, round = 0, true
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
			return head, true, round
		}
		if tested >= size {
			return head, false, round
		}
	}
}

// place leaves the head where llama.cpp's cell-by-cell walk leaves it, on
// caches fragmented by random frees: when room is found before the end,
// past it, or not at all.
func TestPlaceMatchesCellWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{64, 100, 257, 1000} {
		const slots = 6
		c := NewSlotCache(slots, size)
		used := make([]bool, size)
		fails, rounds := 0, 0
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
			if rng.IntN(8) == 0 { // spans over more than one word
				n = 1 + rng.IntN(min(size, 200))
			}
			for range n {
				c.batch = append(c.batch, slot)
			}
			wantHead, ok, round := walkFindSlot(used, c.head, c.used, n)
			if ok && round {
				rounds++
			}
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
		if fails == 0 || rounds == 0 {
			t.Errorf("size %d: %d placements failed, %d found room only past the end: the test missed a case", size, fails, rounds)
		}
	}
}

// firstFit finds the first free span as a cell-by-cell search does, for
// spans inside a word and across several.
func TestFirstFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		size := 1 + rng.IntN(700)
		b := newCellSet(size)
		used := make([]bool, size)
		from, n := rng.IntN(size), 1+rng.IntN(min(size, 200))
		mark := func(i int) { used[i] = true; b.set(i) }
		if rng.IntN(2) == 0 {
			density := rng.Float64()
			for i := range used {
				if rng.Float64() < density*density {
					mark(i)
				}
			}
		} else {
			// Used cells about n apart: free spans of just n cells, or one short.
			for i := rng.IntN(n + 1); i < size; i += n + rng.IntN(3) {
				mark(i)
			}
		}
		want := -1
		for h := from; h+n <= size && want < 0; h++ {
			if !slices.Contains(used[h:h+n], true) {
				want = h
			}
		}
		if got := b.firstFit(from, n, size); got != want {
			t.Fatalf("size %d, from %d, %d cells: firstFit %d, want %d", size, from, n, got, want)
		}
	}
}
