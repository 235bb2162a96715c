package sim

// slotTable is llama.cpp's sequence slots as seen by the step timer: a
// running sequence holds a slot; a finished one leaves its tokens in the
// slot (a prompt cache) until another sequence takes it, and those tokens
// stay in the KV cache that every step attends over. A new sequence takes
// the lowest-numbered idle slot, as Ollama does when no cached prompt
// matches.
type slotTable struct {
	busy     []bool
	retained []int64 // tokens an idle slot keeps
	stale    int64   // Σ retained
}

func newSlotTable(n int) *slotTable {
	return &slotTable{busy: make([]bool, n), retained: make([]int64, n)}
}

// take gives s the lowest-numbered idle slot, dropping what it retained.
// With every slot busy (a policy running more sequences than slots) s
// runs without one.
func (t *slotTable) take(s *seq) {
	if t == nil || s.slot >= 0 {
		return
	}
	for i, b := range t.busy {
		if !b {
			t.busy[i] = true
			t.stale -= t.retained[i]
			t.retained[i] = 0
			s.slot = int32(i)
			return
		}
	}
}

// release frees s's slot, which keeps tokens tokens.
func (t *slotTable) release(s *seq, tokens int64) {
	if t == nil || s.slot < 0 {
		return
	}
	t.busy[s.slot] = false
	t.retained[s.slot] = tokens
	t.stale += tokens
	s.slot = -1
}
