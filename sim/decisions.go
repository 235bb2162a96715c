package sim

import (
	"bufio"
	"io"
	"strconv"
)

// decisionLog writes Config.Decisions: one JSON object per line.
//
// A step:    {"t_ns":…,"steps":1,"step_s":…,"prefill_ids":[…],"prefill_tokens":…,"prefill_attn":…,
//
//	"prefill_context_tokens":…,"resident_tokens":…,"decode_ids":[…],"decode_seqs":…,
//	"decode_context_tokens":…,"after_prefill":…,"preempted_ids":[…],"blocks_used":…,
//	"blocks_free":…,"waiting":…}
//
// with the step's Batch, from which its StepTimer gave step_s:
// prefill_tokens, prefill_attn (token pairs), prefill_context_tokens,
// resident_tokens, decode_seqs, decode_context_tokens and after_prefill
// (0 or 1) are its PrefillTokens, PrefillAttn, PrefillContext, Resident,
// DecodeSeqs, DecodeContext and AfterPrefill.
//
// A stretch: the same keys with "steps":k>1, "step_s" the stretch's total,
//
//	decode_context_tokens and resident_tokens those of its first step (each
//	grows by decode_seqs a step), after_prefill how many of its first steps
//	are AfterPrefill, blocks after the stretch, no prefill and no preemption.
//
// An OOM, the last line of a run a static batch stopped (OOMReport):
//
//	{"t_ns":…,"oom":true,"batch":…,"batch_ids":[…],"batch_tokens":…,
//	"blocks_needed":…,"blocks_used":…,"blocks_free":…,"waiting":…}
//
// with blocks as the batch formed and waiting the requests queued besides
// it; the batch never runs.
//
// t_ns is the step's start in ns from the trace start; ids are 0-based
// input row numbers. Blocks are counted after the step's allocations.
// Every step is logged, warm-up rows' included: their preemptions, and the
// step time before the measured window opens or after it closes, are in
// the log but not in the Summary.
type decisionLog struct {
	w   *bufio.Writer
	buf []byte
	err error
}

func newDecisionLog(w io.Writer) *decisionLog {
	if w == nil {
		return nil
	}
	return &decisionLog{w: bufio.NewWriterSize(w, 1<<16), buf: make([]byte, 0, 1024)}
}

func (l *decisionLog) flush() error {
	if l == nil {
		return nil
	}
	if err := l.w.Flush(); l.err == nil {
		l.err = err
	}
	return l.err
}

func (l *decisionLog) step(e *engine, b Batch, dt float64) {
	l.begin(e, 1, dt)
	l.buf = append(l.buf, `,"prefill_ids":[`...)
	first := true
	for _, s := range e.pre {
		if s.chunk > 0 {
			l.buf = l.sep(first)
			l.buf = strconv.AppendInt(l.buf, s.idx, 10)
			first = false
		}
	}
	l.buf = append(l.buf, `],"prefill_tokens":`...)
	l.buf = strconv.AppendInt(l.buf, int64(b.PrefillTokens), 10)
	l.buf = append(l.buf, `,"prefill_attn":`...)
	l.buf = strconv.AppendInt(l.buf, int64(b.PrefillAttn), 10)
	l.buf = append(l.buf, `,"prefill_context_tokens":`...)
	l.buf = strconv.AppendInt(l.buf, int64(b.PrefillContext), 10)
	l.buf = append(l.buf, `,"resident_tokens":`...)
	l.buf = strconv.AppendInt(l.buf, int64(b.Resident), 10)
	l.decodes(e, b.DecodeContext, int64(b.AfterPrefill))
	l.buf = append(l.buf, `,"preempted_ids":[`...)
	for i, id := range e.preempt {
		l.buf = l.sep(i == 0)
		l.buf = strconv.AppendInt(l.buf, id, 10)
	}
	l.buf = append(l.buf, ']')
	l.end(e)
}

// stretch logs k decode steps from c0 context tokens, the first after of
// them AfterPrefill (only where the timer ignores it: see iterate).
func (l *decisionLog) stretch(e *engine, k int64, c0, total float64, after int64) {
	l.begin(e, k, total)
	l.buf = append(l.buf, `,"prefill_ids":[],"prefill_tokens":0,"prefill_attn":0,"prefill_context_tokens":0,"resident_tokens":`...)
	l.buf = strconv.AppendInt(l.buf, int64(c0), 10)
	l.decodes(e, c0, after)
	l.buf = append(l.buf, `,"preempted_ids":[]`...)
	l.end(e)
}

// oom logs the static batch that did not fit: the members admitted before
// it ran out are running, the left others lead the waiting queue.
func (l *decisionLog) oom(e *engine, r *OOMReport, left int) {
	l.buf = append(l.buf[:0], `{"t_ns":`...)
	l.buf = strconv.AppendInt(l.buf, e.now, 10)
	l.buf = append(l.buf, `,"oom":true,"batch":`...)
	l.buf = strconv.AppendInt(l.buf, r.Batch, 10)
	l.buf = append(l.buf, `,"batch_ids":[`...)
	first := true
	for s := e.runHead; s != nil; s = s.next {
		l.buf = l.sep(first)
		l.buf = strconv.AppendInt(l.buf, s.idx, 10)
		first = false
	}
	for i := range left {
		l.buf = l.sep(first)
		l.buf = strconv.AppendInt(l.buf, e.waiting.at(i).idx, 10)
		first = false
	}
	l.buf = append(l.buf, `],"batch_tokens":`...)
	l.buf = strconv.AppendInt(l.buf, r.BatchTokens, 10)
	l.buf = append(l.buf, `,"blocks_needed":`...)
	l.buf = strconv.AppendInt(l.buf, r.BlocksNeeded, 10)
	l.buf = append(l.buf, `,"blocks_used":`...)
	l.buf = strconv.AppendInt(l.buf, int64(r.TotalBlocks-r.FreeBlocks), 10)
	l.buf = append(l.buf, `,"blocks_free":`...)
	l.buf = strconv.AppendInt(l.buf, int64(r.FreeBlocks), 10)
	l.buf = append(l.buf, `,"waiting":`...)
	l.buf = strconv.AppendInt(l.buf, int64(r.Queued), 10)
	l.buf = append(l.buf, "}\n"...)
	if l.err == nil {
		_, l.err = l.w.Write(l.buf)
	}
}

func (l *decisionLog) begin(e *engine, steps int64, sec float64) {
	l.buf = append(l.buf[:0], `{"t_ns":`...)
	l.buf = strconv.AppendInt(l.buf, e.now, 10)
	l.buf = append(l.buf, `,"steps":`...)
	l.buf = strconv.AppendInt(l.buf, steps, 10)
	l.buf = append(l.buf, `,"step_s":`...)
	l.buf = strconv.AppendFloat(l.buf, sec, 'g', -1, 64)
}

func (l *decisionLog) decodes(e *engine, context float64, after int64) {
	l.buf = append(l.buf, `,"decode_ids":[`...)
	first := true
	for s := e.runHead; s != nil; s = s.next {
		if s.decoding {
			l.buf = l.sep(first)
			l.buf = strconv.AppendInt(l.buf, s.idx, 10)
			first = false
		}
	}
	l.buf = append(l.buf, `],"decode_seqs":`...)
	l.buf = strconv.AppendInt(l.buf, e.nDec, 10)
	l.buf = append(l.buf, `,"decode_context_tokens":`...)
	l.buf = strconv.AppendInt(l.buf, int64(context), 10)
	l.buf = append(l.buf, `,"after_prefill":`...)
	l.buf = strconv.AppendInt(l.buf, after, 10)
}

func (l *decisionLog) end(e *engine) {
	l.buf = append(l.buf, `,"blocks_used":`...)
	l.buf = strconv.AppendInt(l.buf, int64(e.bm.used()), 10)
	l.buf = append(l.buf, `,"blocks_free":`...)
	l.buf = strconv.AppendInt(l.buf, int64(e.bm.free()), 10)
	l.buf = append(l.buf, `,"waiting":`...)
	l.buf = strconv.AppendInt(l.buf, int64(e.waiting.len()), 10)
	l.buf = append(l.buf, "}\n"...)
	if l.err == nil {
		_, l.err = l.w.Write(l.buf)
	}
}

func (l *decisionLog) sep(first bool) []byte {
	if first {
		return l.buf
	}
	return append(l.buf, ',')
}
