package calibrate

import (
	"cmp"
	"slices"
	"sort"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// Prompt lengths of the requests LiveOptions.ResetSlots sends: short
// before a configuration's first repeat, long before the next, so that
// idle slots hold little, then much. Each leaves its prompt + 1 tokens.
const (
	ResetPromptTokens     = 64
	LongResetPromptTokens = 512
)

// slotCells is the cells per slot of the slot cache calibration replays:
// more than any calibration run fills, so that placement never wraps.
const slotCells = 1 << 14

// newSlotCache is the cache of a freshly started engine with n slots.
func newSlotCache(n int) *sim.SlotCache { return sim.NewSlotCache(n, n*slotCells) }

// runPrompts says what the prompts of one run share at their start, for
// the slot cache's choice of slot and what it keeps: the requests of a
// run share shared tokens (the replay's run tag, see RunResult.Shared);
// key tells runs apart. shared 0: nothing beyond the template.
type runPrompts struct {
	key    uint64
	shared int32
}

// take gives a request of prompt tokens of run p its slot.
func (p runPrompts) take(c *sim.SlotCache, prompt int32) (slot int, cached int32) {
	if p.shared <= 0 {
		return c.Take(prompt, nil, 0)
	}
	return c.Take(prompt, []uint64{p.key}, sim.SharedPrefix+int(p.shared))
}

// resetCache replays the slot reset before a run: n requests of prompt
// tokens and one output token, as many at once as there are slots.
func resetCache(c *sim.SlotCache, n, prompt int, p runPrompts) {
	slots := c.Slots()
	tokens := make([]int32, slots)
	for n > 0 {
		clear(tokens)
		var taken []int
		for range min(n, slots) {
			s, cached := p.take(c, int32(prompt))
			if s < 0 {
				break
			}
			tokens[s] = int32(prompt) - cached
			taken = append(taken, s)
		}
		if len(taken) == 0 {
			return
		}
		c.Prefill(tokens)
		for _, s := range taken {
			c.Release(s)
		}
		n -= len(taken)
	}
}

// resReq is one request of a run as the slot model sees it.
type resReq struct {
	send, end int64
	prompt    int64
	cached    int32 // prompt tokens its slot already held
	times     []int64
	slot      int // -1: none (queued, or no slots)
}

// annotateResident sets PrefillResident and DecodeResident of obs (one
// run's recovered steps, in time order) from the KV tokens each step
// attends over.
//
// With a slot cache (llama.cpp, Ollama) that is the cells the step
// attends over (sim.SlotCache), found by replaying the run through the
// cache the earlier runs left: requests take slots when sent (queued
// while all are busy), their prompt goes into the cache when their first
// token arrives and one cell per later token, and they give the slot back
// at their last token. The cache carries over to the next run. Tokens
// that arrive within tol of each other are placed together, as the one
// engine step that made them (SlotCache.Prefill); placing them from the
// token times rather than the recovered steps keeps the cache right when
// step recovery drops a step. A step's tokens arrive from its End to tol
// after it (RecoverSteps' clustering); a request sent after End takes its
// slot after the step. Requests share p's tokens with the prompt a slot
// holds from the same run.
//
// Without one (cache nil), it is the prompt and tokens so far of every
// request in flight at the middle of the step. Failed requests (no token
// times) hold nothing.
func annotateResident(obs []Observation, rows []*traces.Request, cache *sim.SlotCache, tol int64, p runPrompts) {
	var reqs []*resReq
	for _, r := range rows {
		if len(r.TokenTimes) == 0 {
			continue
		}
		send := r.ActualSend
		if send == traces.Missing {
			send = r.ScheduledSend
		}
		if send == traces.Missing {
			send = r.Arrival
		}
		prompt := int64(r.UsagePrompt)
		if prompt <= 0 {
			prompt = int64(r.PromptTokens)
		}
		reqs = append(reqs, &resReq{send: send, end: r.TokenTimes[len(r.TokenTimes)-1], prompt: prompt,
			times: r.TokenTimes, slot: -1})
	}
	if cache == nil {
		for k := range obs {
			o := &obs[k]
			mid := o.Start + (o.End-o.Start)/2
			var resident int64
			for _, r := range reqs {
				if r.send <= mid && r.end >= mid {
					resident += r.prompt + int64(sort.Search(len(r.times), func(i int) bool { return r.times[i] >= mid }))
				}
			}
			o.PrefillResident = o.PrefillTokens * float64(resident)
			o.DecodeResident = o.DecodeSeqs * float64(resident)
		}
		return
	}

	// Events in time order; at equal times a token is placed before its
	// request ends, and a request ends before the next one takes its slot.
	const (
		evToken = iota
		evEnd
		evSend
	)
	type event struct {
		t    int64
		kind int
		tok  int // token index for evToken
		r    *resReq
	}
	var events []event
	for _, r := range reqs {
		events = append(events, event{t: r.send, kind: evSend, r: r}, event{t: r.end, kind: evEnd, r: r})
		for i, t := range r.times {
			events = append(events, event{t: t, kind: evToken, tok: i, r: r})
		}
	}
	slices.SortStableFunc(events, func(a, b event) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.kind, b.kind))
	})
	tokens := make([]int32, cache.Slots())
	var queue []*resReq
	assign := func() {
		for len(queue) > 0 {
			s, cached := p.take(cache, int32(queue[0].prompt))
			if s < 0 {
				return
			}
			queue[0].slot, queue[0].cached = s, cached
			queue = queue[1:]
		}
	}
	// Tokens that arrive within tol of each other came out of one engine
	// step, which placed them in one batch: the prompts of requests whose
	// first token it is, one token of the others (Prefill).
	var step []event
	flush := func() {
		if len(step) == 0 {
			return
		}
		clear(tokens)
		for _, e := range step {
			tokens[e.r.slot] = 1
			if e.tok == 0 {
				tokens[e.r.slot] = int32(e.r.prompt) - e.r.cached
			}
		}
		cache.Prefill(tokens)
		step = step[:0]
	}
	process := func(e event) {
		if e.kind == evToken {
			if e.r.slot < 0 {
				return
			}
			if len(step) > 0 && (e.t > step[0].t+tol || slices.ContainsFunc(step, func(o event) bool { return o.r == e.r })) {
				flush()
			}
			step = append(step, e)
			return
		}
		flush()
		switch e.kind {
		case evSend:
			queue = append(queue, e.r)
			assign()
		case evEnd:
			if e.r.slot >= 0 {
				cache.Release(e.r.slot)
				e.r.slot = -1
			} else if i := slices.Index(queue, e.r); i >= 0 {
				queue = slices.Delete(queue, i, i+1)
			}
			assign()
		}
	}
	next := 0
	for k := range obs {
		o := &obs[k]
		for ; next < len(events); next++ {
			e := events[next]
			if e.t > o.End+tol || (e.t > o.End && e.kind == evSend) {
				break
			}
			process(e)
		}
		flush()
		attended := float64(cache.Attended())
		o.PrefillResident = o.PrefillTokens * attended
		o.DecodeResident = o.DecodeSeqs * attended
	}
	for ; next < len(events); next++ {
		process(events[next])
	}
	flush()
}
