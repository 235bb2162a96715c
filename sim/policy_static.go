package sim

import (
	"fmt"
	"math"
)

// static covers serial, fixed and token_budget: one batch at a time, formed
// when the device is idle, that prefills all members in one step and
// decodes until its last member finishes. Members reserve KV blocks for
// prompt + max_new (within MaxModelLen) up front, less the last token,
// which is never cached (reservedBlocks); a batch that does not fit ends the run with an
// OOM report (and rows marked not run for what it did not serve).
//
// A batch starts when it is full (fixed: BatchSize requests wait;
// token_budget: the next waiting request would push Σ(prompt+max_new) over
// the budget, or what is left of it is less than any request reserves) or
// when the oldest waiting request has waited MaxWaitMs.
// Finished members stop decoding (no padding compute) and free their
// blocks.
type static struct {
	batch   int   // > 0: fixed batch size
	budget  int64 // > 0: token budget
	maxWait int64 // ns
}

// reservedBlocks is the KV blocks a static batch reserves for s: prompt +
// max_new tokens but the last one sampled, which is never fed back into
// the cache (as rejectReason counts, and as vLLM stores them).
func reservedBlocks(s *seq, bs int) int64 {
	return blocksFor(int64(s.prompt)+int64(s.maxNew)-1, bs)
}

func (p *static) rejects(e *engine, s *seq) string {
	if n := reservedBlocks(s, e.bs); n > int64(e.cfg.TotalBlocks) {
		return fmt.Sprintf("prompt %d + max_new %d tokens need %d KV blocks (the last token is never cached), the device has %d", s.prompt, s.maxNew, n, e.cfg.TotalBlocks)
	}
	if p.budget > 0 && int64(s.prompt)+int64(s.maxNew) > p.budget {
		return fmt.Sprintf("prompt %d + max_new %d tokens exceed the batch token budget %d", s.prompt, s.maxNew, p.budget)
	}
	return ""
}

// canOOM reports whether some batch could need more KV blocks than the
// device has. A batch forms on an idle device, with every block free, and
// each member reserves prompt + max_new − 1 tokens (reservedBlocks), which
// admission bounds (rejectReason, rejects): a policy whose largest batch of the largest
// requests fits can never run out of memory.
func (p *static) canOOM(cfg *Config) bool {
	total, bs := int64(cfg.TotalBlocks), int64(cfg.BlockSize)
	limit, maxNew := int64(cfg.MaxModelLen), int64(cfg.MaxNewTokens)
	tokens := int64(2 * math.MaxInt32) // prompt and output are int32
	switch {
	case limit > 0:
		// A reservation stops at max_model_len.
		tokens = min(limit, tokens)
	case maxNew > 0:
		tokens = math.MaxInt32 + maxNew
	}
	if p.budget > 0 {
		tokens = min(tokens, p.budget)
	}
	perRequest := min(max(blocksFor(tokens-1, int(bs)), 1), total) // reservedBlocks; rejects: each fits the device
	n := int64(p.batch)
	if p.budget > 0 {
		n = p.budget / LeastReserved(cfg)
	}
	if n > total {
		return true
	}
	if n <= total/perRequest {
		return false
	}
	// A token budget also bounds the batch's blocks: Σ⌈r/bs⌉ ≤ budget/bs + n.
	return p.budget == 0 || p.budget/bs > total-n
}

// LeastReserved is the fewest tokens a static batch member reserves: a 1-token
// prompt plus max_new (at least one token), within max_model_len.
func LeastReserved(cfg *Config) int64 {
	least := 1 + max(int64(cfg.MaxNewTokens), 1)
	if l := int64(cfg.MaxModelLen); l > 0 {
		least = min(least, l)
	}
	return least
}

func (p *static) holds(e *engine) (ok, watch, anon bool) { return true, false, false }

// take is how many waiting requests the next batch holds and whether that
// makes it full.
func (p *static) take(e *engine) (int, bool) {
	n := e.waiting.len()
	if p.budget == 0 {
		return min(n, p.batch), n >= p.batch
	}
	reserved := func(i int) int64 { s := e.waiting.at(i); return int64(s.prompt) + int64(s.maxNew) }
	return TokenBudgetTake(n, reserved, p.budget, LeastReserved(e.cfg))
}

// TokenBudgetTake is how many of n queued requests a token_budget batch
// takes, in queue order, and whether that makes it full: it takes them
// while the tokens they reserve (reserved(i), Config.Reserved) sum within
// budget, and is full once the next does not fit or what is left is less
// than least (LeastReserved), so no request could. The sweep's last-batch
// gate splits a trace by it, so it forms the batches the simulator does.
func TokenBudgetTake(n int, reserved func(i int) int64, budget, least int64) (take int, full bool) {
	sum := int64(0)
	for i := range n {
		t := reserved(i)
		if sum+t > budget {
			return i, true
		}
		sum += t
	}
	return n, n > 0 && budget-sum < least
}

func (p *static) schedule(e *engine) (int64, error) {
	if e.nRunning > 0 || e.waiting.len() == 0 {
		return -1, nil
	}
	take, full := p.take(e)
	oldest := e.waiting.front().arrival
	if !full && e.now-oldest < p.maxWait {
		if oldest > math.MaxInt64-p.maxWait {
			return -1, fmt.Errorf("sim: request %d arrives at %d ns: max_wait_ms after it ends past the simulator's clock (int64 ns, about 292 years)", e.waiting.front().idx, oldest)
		}
		return oldest + p.maxWait, nil
	}
	e.batchNo++
	free0 := e.bm.free()
	lookups, hits := e.bm.lookups, e.bm.hits
	var tokens, blocks int64
	for i := 0; i < take; i++ {
		s := e.waiting.at(i)
		tokens += int64(s.prompt) + int64(s.maxNew)
		blocks += reservedBlocks(s, e.bs)
	}
	for i := 0; i < take; i++ {
		s := e.waiting.front()
		// A member finds the prompt blocks an earlier member of this
		// batch registered, though they are computed in this same step:
		// vLLM caches a block when it allocates it, and each attention
		// layer writes the step's KV before it attends, so the hit is
		// sound. (Mamba layers are the exception vLLM defers to the next
		// step; this model has none.)
		hit, looked, ev := e.peekPrefix(s)
		total := reservedBlocks(s, e.bs)
		if total-int64(hit) > int64(e.bm.free()-ev) {
			e.oom = &OOMReport{
				Replica: e.where, Batch: e.batchNo, Time: float64(e.now) / 1e9, BatchSize: take, BatchTokens: tokens,
				BlocksNeeded: blocks, FreeBlocks: free0, TotalBlocks: e.cfg.TotalBlocks,
				Queued: e.waiting.len() - (take - i) + e.arriving.len(),
			}
			// The batch never runs: its members' prefix lookups are no figure.
			e.bm.lookups, e.bm.hits = lookups, hits
			if e.log != nil {
				e.log.oom(e, e.oom, take-i)
			}
			return -1, &OOMError{Report: *e.oom, at: e.now}
		}
		e.waiting.popFront()
		s.reserved = true
		if err := e.startPrefill(s, hit, looked, s.prompt-int32(hit*e.bs)); err != nil {
			return -1, err
		}
		extra := total - blocksFor(int64(s.prompt), e.bs)
		if err := e.bm.allocPrivate(int(extra)); err != nil {
			return -1, err
		}
		s.private += int32(extra)
	}
	return -1, nil
}

// OOMReport describes a static batch that did not fit in KV memory.
type OOMReport struct {
	Replica      string  `json:",omitempty"` // in a cluster of several replicas, which one: "replica 2 of pool long"
	Batch        int64   // 1-based batch number, counted per replica
	Time         float64 // seconds from trace start
	BatchSize    int     // requests in the batch
	BatchTokens  int64   // Σ(prompt + max_new) of the batch
	BlocksNeeded int64   // Σ blocks reserved for the batch, before prefix sharing
	FreeBlocks   int     // free blocks when the batch formed
	TotalBlocks  int
	Queued       int // requests still waiting besides the batch, those on their way to the scheduler included
}

// OOMError ends a run whose static batch ran out of KV memory.
type OOMError struct {
	Report OOMReport
	at     int64 // when the batch formed, ns: the run ends there
}

func (e *OOMError) Error() string {
	r := e.Report
	where := ""
	if r.Replica != "" {
		where = " on " + r.Replica
	}
	return fmt.Sprintf("sim: out of KV memory%s: batch %d at t=%.3fs has %d requests, %d tokens (prompt+max_new), needs %d blocks, %d of %d free; %d more queued",
		where, r.Batch, r.Time, r.BatchSize, r.BatchTokens, r.BlocksNeeded, r.FreeBlocks, r.TotalBlocks, r.Queued)
}
