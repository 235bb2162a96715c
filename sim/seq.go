package sim

import "github.com/servesim/servesim/traces"

// seq is one in-flight request. The engine owns it from arrival until its
// row is written; then it goes back to a pool with its buffers.
//
// While decoding, a sequence's progress is lazy: it advances one token per
// engine step, so its context and emitted tokens follow from the global step
// counter and the values recorded when it entered decode (ctxE, genE, ge).
// That makes a k-step jump O(1) per stretch instead of O(n·k).
type seq struct {
	idx     int64          // input order, the id used in the decision log
	req     traces.Request // the input row, owned (PrefixHashes copied)
	hashBuf []uint64
	keys    []uint64 // chained keys of the prompt's full, hashed KV blocks
	// Memoised peekPrefix result, valid while the cache generation is peekGen.
	peekGen             uint64
	peekHit, peekLooked int
	peekEv              int
	// Memoised slotHit result, valid while the slot cache generation is slotGen.
	slotGen    uint64
	slotCached int32

	prompt, out int32 // clamped to ≥ 1; out is capped by Config.MaxNewTokens
	maxNew      int32 // tokens a static policy reserves for output: Config.MaxNewTokens (or out when unset), within Config.MaxModelLen
	arrival     int64
	// origin is where the latencies start: the arrival, or in a closed
	// loop the issue, IssueGap and more before it (ClosedLoop).
	origin int64
	// With Admission.Lock, while arriving: where the request is, and since
	// when it has waited for the step loop's lock.
	gate     uint8
	lockFrom int64

	// Prefill state (not decoding).
	target   int32 // tokens to compute before the next token: prompt, or prompt+generated after a preemption
	computed int32 // tokens whose KV is stored
	chunk    int32 // tokens scheduled in the current step
	gen      int32 // tokens emitted (while decoding: at decode entry)
	private  int32 // private blocks held (while decoding and not reserved: see heldPrivate)
	shared   []int32
	// dupOf holds the shared blocks this sequence computed again into
	// private blocks of its own (counted in private): vLLM computes a
	// block into a new one even when another request holds a block with
	// its hash.
	dupOf    []int32
	reserved bool // static policies: blocks for prompt+max_new−1 taken up front (reservedBlocks)

	// Decode state.
	decoding bool
	ctxE     int32 // computed tokens at decode entry
	ge       int64 // global index of the first decode step
	fin      int64 // global index of the step that emits the last token
	hidx     int   // position in the finish heap

	state       uint8
	prev, next  *seq // running list (admission order)
	start       int64
	first, last int64
	cached      int32
	preempts    int32
	slot        int32 // engine slot held while running (SlotCache), -1: none
}

// Where an arriving request is, with Admission.Lock.
const (
	gateOut    uint8 = iota // not at the step loop yet, or blocked for a slot
	gateLock                // waiting for the lock
	gatePassed              // waiting, and passed over once
)

const (
	stWaiting uint8 = iota
	stRunning
	stDone
)

// blocksFor is the number of blocks holding tokens tokens.
func blocksFor(tokens int64, bs int) int64 { return (tokens + int64(bs) - 1) / int64(bs) }

// mix64 combines two 64-bit values (splitmix64 finaliser).
func mix64(a, b uint64) uint64 {
	x := a ^ (b + 0x9e3779b97f4a7c15 + a<<6 + a>>2)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// computeKeys derives one cache key per full KV block of the prompt that the
// request's PrefixHashes cover. Hash j covers prompt tokens
// [j·hashBS, (j+1)·hashBS); KV block i (tokens [i·bs, (i+1)·bs)) gets
// mix(chain_j, i) where j holds its last token and chain_j folds hashes
// 0..j, so equal keys imply equal leading hashes whatever the two block
// sizes are.
func (s *seq) computeKeys(bs, hashBS int) {
	s.keys = s.keys[:0]
	h := s.req.PrefixHashes
	if len(h) == 0 || hashBS <= 0 {
		return
	}
	full := int(s.prompt) / bs
	chain, done := uint64(0x51ed270b27d5a3c1), -1
	for i := 0; i < full; i++ {
		j := ((i+1)*bs - 1) / hashBS
		if j >= len(h) {
			break
		}
		for done < j {
			done++
			chain = mix64(chain, h[done])
		}
		s.keys = append(s.keys, mix64(chain, uint64(i)))
	}
}

// finHeap orders decoding sequences by (fin, idx).
type finHeap []*seq

func (h finHeap) less(i, j int) bool {
	if h[i].fin != h[j].fin {
		return h[i].fin < h[j].fin
	}
	return h[i].idx < h[j].idx
}

func (h finHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hidx, h[j].hidx = i, j
}

func (h *finHeap) push(s *seq) {
	s.hidx = len(*h)
	*h = append(*h, s)
	h.up(s.hidx)
}

func (h *finHeap) remove(i int) {
	n := len(*h) - 1
	if i != n {
		h.swap(i, n)
	}
	(*h)[n].hidx = -1
	*h = (*h)[:n]
	if i < n {
		h.fix(i)
	}
}

// fix restores the order after the sequence at i changed place or fin.
func (h finHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h finHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h finHeap) down(i int) bool {
	i0, n := i, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}

// deque is the waiting queue: FCFS at the back, preempted requests at the front.
type deque struct {
	buf        []*seq
	head, size int
}

func (d *deque) len() int      { return d.size }
func (d *deque) front() *seq   { return d.buf[d.head] }
func (d *deque) at(i int) *seq { return d.buf[(d.head+i)%len(d.buf)] }

func (d *deque) grow() {
	if d.size < len(d.buf) {
		return
	}
	nb := make([]*seq, max(16, 2*len(d.buf)))
	for i := 0; i < d.size; i++ {
		nb[i] = d.at(i)
	}
	d.buf, d.head = nb, 0
}

func (d *deque) pushBack(s *seq) {
	d.grow()
	d.buf[(d.head+d.size)%len(d.buf)] = s
	d.size++
}

func (d *deque) pushFront(s *seq) {
	d.grow()
	d.head = (d.head - 1 + len(d.buf)) % len(d.buf)
	d.buf[d.head] = s
	d.size++
}

func (d *deque) popFront() *seq {
	s := d.buf[d.head]
	d.buf[d.head] = nil
	d.head = (d.head + 1) % len(d.buf)
	d.size--
	return s
}
