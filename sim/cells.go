package sim

import "math/bits"

// SlotCache is the KV cache of llama.cpp and Ollama as their step time
// sees it: one array of cells shared by a fixed number of sequence slots.
//
//   - A step's tokens go in ubatches of UBatch tokens, each into one
//     contiguous run of free cells searched from a head that moves forward
//     (back to the start when enough cells before it are free).
//   - A finished request leaves its tokens in its slot (a prompt cache). A
//     new request takes the idle slot whose tokens share the longest
//     prefix with its prompt, computes only the rest, and only the cells
//     past that prefix are freed; cells never move (Ollama leaves
//     defragmentation off).
//   - Every step attends over all cells up to the highest one in use,
//     padded to 32, whatever they hold.
//
// So a step's attention cost depends on where the cache's history put
// tokens, not on how many there are: one slot's prompt prefix left high in
// the array keeps every later step attending over everything below it.
// Take, Step and Release mirror llama_kv_cache_find_slot,
// llama_kv_cache_seq_rm and Ollama's findLongestCacheSlot (v0.6.5).
type SlotCache struct {
	size      int
	inUse     cellSet   // the cells holding a token
	cells     [][]int32 // each slot's cells in token position order
	head      int
	used, top int        // cells in use; highest used cell + 1
	busy      []bool     // slot runs a request
	keys      [][]uint64 // the prefix keys of the prompt each slot holds (Take)
	batch     []int      // scratch: the current ubatch's owners
	gen       uint64     // counts Take, Release and Drop: what Peek answers changes only with it
	round     []int32    // scratch: Prefill's tokens of one round
}

// Engine constants of llama.cpp as Ollama runs it.
const (
	// UBatch is the most tokens one llama_decode call places at once
	// (n_ubatch, Ollama's num_batch default).
	UBatch = 512
	// cellPad is the padding of the attended cells without flash attention.
	cellPad = 32
	// SharedPrefix is the prompt tokens every request shares with a slot
	// that holds any: the chat template's opening token. Longer shared
	// prefixes come from the requests' prefix keys (Take).
	SharedPrefix = 1
)

// NewSlotCache returns an empty cache of cells cells and slots slots.
func NewSlotCache(slots, cells int) *SlotCache {
	return &SlotCache{size: cells, inUse: newCellSet(cells), cells: make([][]int32, slots), busy: make([]bool, slots), keys: make([][]uint64, slots)}
}

// Slots is the number of sequence slots.
func (c *SlotCache) Slots() int { return len(c.busy) }

// Held is the tokens slot has in the cache.
func (c *SlotCache) Held(slot int) int32 { return int32(len(c.cells[slot])) }

// Take gives a new request of prompt tokens the slot Ollama gives it,
// marks it busy and returns it with the prompt tokens it already holds
// (the shared prefix, which the request does not compute), or -1 when
// every slot is busy. keys are the prompt's prefix keys, one per
// keyTokens tokens (nil: a prompt shared with nothing). A slot holding
// tokens shares with the prompt SharedPrefix tokens, or as many leading
// keys as the prompt it holds has in common, whichever is more; an empty
// one nothing. The idle slot sharing most wins, the lowest-numbered on a
// tie; at least one prompt token is left to compute. The slot's cells
// past the shared prefix are freed.
func (c *SlotCache) Take(prompt int32, keys []uint64, keyTokens int) (slot int, cached int32) {
	slot, cached = c.Peek(prompt, keys, keyTokens)
	if slot < 0 {
		return -1, 0
	}
	c.busy[slot] = true
	c.remove(slot, cached)
	c.keys[slot] = append(c.keys[slot][:0], keys...)
	c.gen++
	return slot, cached
}

// Peek is Take without taking: the slot and cached tokens Take would
// return now.
func (c *SlotCache) Peek(prompt int32, keys []uint64, keyTokens int) (slot int, cached int32) {
	slot, best := -1, int32(-1)
	for i, b := range c.busy {
		if b {
			continue
		}
		if n := c.shared(i, keys, keyTokens); n > best {
			slot, best = i, n
		}
	}
	if slot < 0 {
		return -1, 0
	}
	return slot, max(0, min(best, prompt-1))
}

// shared is the prompt tokens slot holds of a prompt with keys.
func (c *SlotCache) shared(slot int, keys []uint64, keyTokens int) int32 {
	held := c.Held(slot)
	if held == 0 {
		return 0
	}
	n := 0
	for n < len(keys) && n < len(c.keys[slot]) && keys[n] == c.keys[slot][n] {
		n++
	}
	return min(held, max(SharedPrefix, int32(n*keyTokens)))
}

// Release marks slot idle; its tokens stay in the cache.
func (c *SlotCache) Release(slot int) {
	if slot >= 0 {
		c.busy[slot] = false
		c.gen++
	}
}

// Drop frees every cell of slot (a request preempted by recompute).
func (c *SlotCache) Drop(slot int) {
	if slot >= 0 {
		c.remove(slot, 0)
		c.gen++
	}
}

// remove frees slot's cells at positions ≥ from, moving the head back to
// the first freed cell when that is before it.
func (c *SlotCache) remove(slot int, from int32) {
	cells := c.cells[slot]
	if int(from) >= len(cells) {
		return
	}
	first := c.size
	for _, i := range cells[from:] {
		c.inUse.clear(int(i))
		first = min(first, int(i))
	}
	c.used -= len(cells) - int(from)
	c.cells[slot] = cells[:from]
	c.head = min(c.head, first)
	c.top = c.inUse.lastIn(0, c.top) + 1
}

// Prefill places prompts the way Ollama's runner batches them: each
// llama_decode call takes at most UBatch tokens of every sequence, so
// prompts that start together go in rounds, one Step per round, each
// sequence's next UBatch tokens in slot order. tokens[i] are slot i's
// prompt tokens; it is used up. It returns the cells the last round
// attends over.
func (c *SlotCache) Prefill(tokens []int32) int {
	if cap(c.round) < len(tokens) {
		c.round = make([]int32, len(tokens))
	}
	round := c.round[:len(tokens)]
	att := c.Attended()
	for {
		var placed int32
		for i, n := range tokens {
			r := min(n, UBatch)
			round[i], tokens[i] = r, n-r
			placed += r
		}
		if placed == 0 {
			return att
		}
		att = c.Step(round)
	}
}

// Step places one engine step's tokens, tokens[i] new ones for slot i, in
// slot order, and returns the cells the step attends over. Tokens that
// find no room are left out (the engine would fail the request; memory
// limits are the block manager's to enforce).
func (c *SlotCache) Step(tokens []int32) int {
	c.batch = c.batch[:0]
	for s, n := range tokens {
		for range n {
			c.batch = append(c.batch, s)
			if len(c.batch) == UBatch {
				c.place()
			}
		}
	}
	if len(c.batch) > 0 {
		c.place()
	}
	return c.Attended()
}

// Attended is the cells a step attends over now.
func (c *SlotCache) Attended() int {
	return min(c.size, max(cellPad, (c.top+cellPad-1)/cellPad*cellPad))
}

// place stores the ubatch in c.batch as llama_decode does and empties it.
func (c *SlotCache) place() {
	n := len(c.batch)
	defer func() { c.batch = c.batch[:0] }()
	if n > c.size {
		return
	}
	if c.head > c.used+2*n {
		c.head = 0
	}
	// llama.cpp's search stops at the first n free cells at or after its
	// head when they fit before the cache's end; only a search that has to
	// go round needs its walk.
	if h := c.inUse.firstFit(c.head, n, c.size); h >= 0 {
		c.head = h
	} else if !c.walk(n) {
		return
	}
	for i, s := range c.batch {
		c.inUse.set(c.head + i)
		c.cells[s] = append(c.cells[s], int32(c.head+i))
	}
	c.used += n
	c.top = max(c.top, c.head+n)
	c.head += n
}

// walk is llama_kv_cache_find_slot's search for n free cells from the
// head: it moves the head one cell past the first used cell it finds,
// back to the start when the cells would run past the end, and gives up
// once it has tested as many cells as the cache has. walk jumps over a
// run of used cells at once, to where that walk would test next (a free
// cell, or the point where it goes round), so the head and the count come
// out the same. It leaves the head where the search ended and reports
// whether it found room.
func (c *SlotCache) walk(n int) bool {
	size := c.size
	for tested := 0; ; {
		if c.head+n > size {
			tested += size - c.head
			c.head = 0
			continue
		}
		p := c.inUse.firstIn(c.head, c.head+n)
		if p < 0 {
			return true
		}
		next := min(c.inUse.firstFreeFrom(p+1), max(p+1, size-n+1))
		tested += p + 1 - c.head
		if tested+next-(p+1) >= size {
			c.head = p + 1 + max(0, size-tested)
			return false
		}
		tested += next - (p + 1)
		c.head = next
	}
}

// cellSet is a bitset of cells, searched a word at a time.
type cellSet []uint64

func newCellSet(n int) cellSet { return make(cellSet, (n+63)/64) }

func (b cellSet) set(i int)   { b[i>>6] |= 1 << (i & 63) }
func (b cellSet) clear(i int) { b[i>>6] &^= 1 << (i & 63) }

// firstIn is the first set cell in [from, to), or -1.
func (b cellSet) firstIn(from, to int) int {
	for w := from >> 6; w<<6 < to; w++ {
		word := b[w]
		if w == from>>6 {
			word &= ^uint64(0) << (from & 63)
		}
		if word != 0 {
			if i := w<<6 + bits.TrailingZeros64(word); i < to {
				return i
			}
			return -1
		}
	}
	return -1
}

// firstFreeFrom is the first clear cell at or after from (len(b)×64 when
// there is none).
func (b cellSet) firstFreeFrom(from int) int {
	for w := from >> 6; w < len(b); w++ {
		word := ^b[w]
		if w == from>>6 {
			word &= ^uint64(0) << (from & 63)
		}
		if word != 0 {
			return w<<6 + bits.TrailingZeros64(word)
		}
	}
	return len(b) << 6
}

// firstFit is the first h ≥ from with cells [h, h+n) all clear and
// h+n ≤ size, or -1. A span of up to a word's cells lies inside one word,
// found by shifting its clear bits onto themselves, or runs from one
// word's top into the next; either way each word is read once.
func (b cellSet) firstFit(from, n, size int) int {
	if n > 64 {
		return b.firstWideFit(from, n, size)
	}
	run, start := 0, from // the clear cells at the top of the word before
	for w := from >> 6; w < len(b); w++ {
		used := b[w]
		if w == from>>6 {
			used |= 1<<(from&63) - 1 // cells before from count as used
		}
		if run+bits.TrailingZeros64(used) >= n {
			return fit(start, n, size)
		}
		if r := runStarts(^used, n); r != 0 {
			return fit(w<<6+bits.TrailingZeros64(r), n, size)
		}
		run = bits.LeadingZeros64(used)
		start = w<<6 + 64 - run
	}
	return -1
}

// firstWideFit is firstFit for spans of several words: a used cell in a
// candidate span rules out every start up to it, so the search skips past
// the last one, reading only the words it needs.
func (b cellSet) firstWideFit(from, n, size int) int {
	for h := from; h+n <= size; {
		last := b.lastIn(h, h+n)
		if last < 0 {
			return h
		}
		h = last + 1
	}
	return -1
}

// fit is start when a span of n cells from it ends by size, else -1.
func fit(start, n, size int) int {
	if start+n <= size {
		return start
	}
	return -1
}

// runStarts marks each bit of x that starts a run of n ≤ 64 set bits
// within x.
func runStarts(x uint64, n int) uint64 {
	for have := 1; have < n && x != 0; {
		s := min(have, n-have)
		x &= x >> s
		have += s
	}
	return x
}

// lastIn is the last set cell in [from, to), or -1.
func (b cellSet) lastIn(from, to int) int {
	if to <= from {
		return -1
	}
	for w := (to - 1) >> 6; w >= from>>6; w-- {
		word := b[w]
		if w == (to-1)>>6 {
			word &= ^uint64(0) >> (63 - (to-1)&63)
		}
		if word != 0 {
			if i := w<<6 + 63 - bits.LeadingZeros64(word); i >= from {
				return i
			}
			return -1
		}
	}
	return -1
}
