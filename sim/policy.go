package sim

import "math"

// scheduler is a batching policy. The engine owns the state (waiting queue,
// running list, blocks); a policy only decides who runs in the next step.
type scheduler interface {
	// schedule forms the batch of the step starting at e.now: it admits
	// waiting requests (setting their chunk), allocates their blocks and,
	// for continuous batching, the decoding sequences' next blocks,
	// preempting when they run out. When it admits nothing and the device
	// is idle, wake ≥ 0 is when it wants to be asked again (-1: at the
	// next arrival).
	schedule(e *engine) (wake int64, err error)
	// holds reports whether, with only decoding sequences running, every
	// step until the next completion or block exhaustion would make the
	// same decision (run the decodes, admit nothing). watch: an arrival
	// could change that. anon: it holds only while blocks are allocated
	// without evicting cached ones.
	holds(e *engine) (ok, watch, anon bool)
	// rejects explains why s can never run under this policy ("" = it can).
	rejects(e *engine, s *seq) string
}

func newScheduler(p PolicyConfig) scheduler {
	wait := int64(math.Round(p.MaxWaitMs * 1e6))
	switch p.Name {
	case Serial:
		return &static{batch: 1}
	case Fixed:
		return &static{batch: p.BatchSize, maxWait: wait}
	case TokenBudget:
		return &static{budget: int64(p.TokenBudget), maxWait: wait}
	default:
		return &continuous{maxSeqs: p.MaxNumSeqs, maxTokens: int64(p.MaxNumBatchedTokens), chunked: p.ChunkedPrefill}
	}
}
