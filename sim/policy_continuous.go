package sim

import "fmt"

// continuous is vLLM-style iteration-level scheduling. Each step:
//
//  1. every decoding sequence gets its next token slot; when a new block
//     is needed and none is free, the newest running request is preempted
//     (recompute: its blocks are freed and it returns to the head of the
//     waiting queue) until the rest fit;
//  2. running requests still prefilling (chunked prefill) get their next
//     chunk, in admission order, within the token budget left after the
//     decode tokens (preempting the newest when blocks run out);
//  3. unless step 1 or 2 preempted someone and others still run, waiting
//     requests are admitted first-come first-served while a sequence slot,
//     token budget and blocks for their first chunk are available; the
//     first that does not fit stops admission (no skipping ahead). (When a
//     preemption left nothing running, vLLM schedules an empty step and
//     admits at the next, at the same time: admitting now is the same.)
//
// Without chunked prefill a prompt must fit the remaining token budget
// whole; one longer than MaxNumBatchedTokens is rejected on arrival (a
// recomputed request that outgrew the budget runs alone).
type continuous struct {
	maxSeqs   int
	maxTokens int64
	chunked   bool
}

func (p *continuous) rejects(_ *engine, s *seq) string {
	if !p.chunked && int64(s.prompt) > p.maxTokens {
		return fmt.Sprintf("prompt %d tokens exceeds max_num_batched_tokens %d and chunked prefill is off", s.prompt, p.maxTokens)
	}
	return ""
}

func (p *continuous) schedule(e *engine) (int64, error) {
	budget := p.maxTokens
	bs := int64(e.bs)
	if e.nPhase > 0 {
		need := int64(e.phase[e.g%bs])
		for need > int64(e.bm.free()) {
			v := e.runTail
			if e.needsBlock(v) {
				need--
			}
			if err := e.preemptSeq(v); err != nil {
				return -1, err
			}
		}
		if err := e.bm.allocPrivate(int(need)); err != nil {
			return -1, err
		}
	}
	e.gAlloc = e.g + 1
	budget -= e.nDec

	for _, s := range e.pre {
		if s.state != stRunning {
			continue
		}
		s.chunk = 0
		if budget <= 0 {
			continue
		}
		chunk := min(int64(s.target-s.computed), budget)
		need := blocksFor(int64(s.computed)+chunk, e.bs) - int64(len(s.shared)) - int64(s.private) + int64(len(s.dupOf))
		for need > int64(e.bm.free()) {
			v := e.runTail
			if err := e.preemptSeq(v); err != nil {
				return -1, err
			}
			if v == s {
				break
			}
		}
		if s.state != stRunning {
			continue
		}
		if err := e.growPrefill(s, s.computed+int32(chunk)); err != nil {
			return -1, err
		}
		s.chunk = int32(chunk)
		budget -= chunk
	}
	e.compactPre()

	if len(e.preempt) > 0 && e.nRunning > 0 {
		return -1, nil
	}
	for e.waiting.len() > 0 && e.nRunning < p.maxSeqs && budget > 0 {
		s := e.waiting.front()
		hit, looked, chunk, ok := p.fit(e, s, budget, e.bm.free())
		if !ok {
			break
		}
		e.waiting.popFront()
		if err := e.startPrefill(s, hit, looked, int32(chunk)); err != nil {
			return -1, err
		}
		budget -= chunk
	}
	return -1, nil
}

// fit decides whether waiting s can start with budget tokens and free
// blocks: hit is its prefix-cache hit in blocks (of looked looked up), chunk
// the tokens it would compute this step.
func (p *continuous) fit(e *engine, s *seq, budget int64, free int) (hit, looked int, chunk int64, ok bool) {
	ev := 0
	hit, looked, ev = e.peekPrefix(s)
	// Tokens it need not compute: its prefix-cache hit, or what the slot
	// it would take holds.
	done := max(int64(hit*e.bs), int64(e.slotHit(s)))
	toCompute := int64(s.target) - done
	chunk = toCompute
	if p.chunked {
		chunk = min(toCompute, budget)
	} else if toCompute > budget && e.nRunning > 0 {
		return 0, 0, 0, false
	}
	need := blocksFor(done+chunk, e.bs) - int64(hit)
	if need > int64(free-ev) {
		return 0, 0, 0, false
	}
	return hit, looked, chunk, true
}

func (p *continuous) holds(e *engine) (ok, watch, anon bool) {
	if e.waiting.len() == 0 {
		return true, true, false
	}
	budget := p.maxTokens - e.nDec
	if e.nRunning >= p.maxSeqs || budget <= 0 {
		return true, false, false
	}
	if _, _, _, fits := p.fit(e, e.waiting.front(), budget, e.bm.free()); fits {
		return false, false, false
	}
	// Blocked on blocks (or, without chunking, on the budget). Fewer free
	// blocks keep it blocked, unless evicting a block the head would hit
	// makes its hit shorter and frees the reservation on it.
	_, _, ev := e.peekPrefix(e.waiting.front())
	return true, false, ev > 0
}
