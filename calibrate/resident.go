package calibrate

import (
	"cmp"
	"slices"
	"sort"

	"github.com/servesim/servesim/traces"
)

// Prompt lengths of the requests LiveOptions.ResetSlots sends: short
// before a configuration's first repeat, long before the next, so that
// idle slots hold little, then much. Each leaves its prompt + 1 tokens.
const (
	ResetPromptTokens     = 64
	LongResetPromptTokens = 512
)

// slotState is what an engine's sequence slots hold, carried from run to
// run: llama.cpp and Ollama give a new sequence the lowest-numbered idle
// slot, and an idle slot keeps its last sequence's tokens (its prompt
// cache) in the one KV cache that every step attends over.
type slotState struct {
	busy     []bool
	retained []int64
}

func newSlotState(n int) *slotState {
	return &slotState{busy: make([]bool, n), retained: make([]int64, n)}
}

// reset puts tokens in every slot, as the slot-reset requests leave them.
func (s *slotState) reset(tokens int64) {
	for i := range s.retained {
		s.busy[i], s.retained[i] = false, tokens
	}
}

// resReq is one request of a run as the slot model sees it.
type resReq struct {
	send, end int64
	prompt    int64
	out       int64
	times     []int64
	slot      int // -1: none (queued, or no slots)
}

// annotateResident sets PrefillResident and DecodeResident of obs (one
// run's recovered steps) from the tokens resident in the KV cache at the
// middle of each step: the prompt and tokens so far of every request
// holding a slot, plus what idle slots retain. Requests take slots in
// send order as slots free up (lowest number first); failed requests
// (no token times) hold none. slots nil means an engine without slots:
// every request in flight counts and nothing is retained. The slot state
// carries over to the next run.
func annotateResident(obs []Observation, rows []*traces.Request, slots *slotState) {
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
			out: int64(len(r.TokenTimes)), times: r.TokenTimes, slot: -1})
	}
	type event struct {
		t   int64
		end bool
		r   *resReq
	}
	events := make([]event, 0, 2*len(reqs))
	for _, r := range reqs {
		events = append(events, event{r.send, false, r}, event{r.end, true, r})
	}
	// Ends first at equal times: a slot frees before the next request takes it.
	slices.SortStableFunc(events, func(a, b event) int {
		switch {
		case a.t != b.t:
			return cmp.Compare(a.t, b.t)
		case a.end != b.end:
			if a.end {
				return -1
			}
			return 1
		}
		return 0
	})
	var queue []*resReq
	inFlight := map[*resReq]bool{}
	assign := func() {
		for len(queue) > 0 {
			i := slices.Index(slots.busy, false)
			if i < 0 {
				return
			}
			slots.busy[i], slots.retained[i], queue[0].slot = true, 0, i
			queue = queue[1:]
		}
	}
	process := func(e event) {
		switch {
		case slots == nil && e.end:
			delete(inFlight, e.r)
		case slots == nil:
			inFlight[e.r] = true
		case e.end:
			if e.r.slot >= 0 {
				slots.busy[e.r.slot], slots.retained[e.r.slot] = false, e.r.prompt+e.r.out
				e.r.slot = -1
			} else if i := slices.Index(queue, e.r); i >= 0 {
				queue = slices.Delete(queue, i, i+1)
			}
			assign()
		default:
			queue = append(queue, e.r)
			assign()
		}
	}
	next := 0
	for k := range obs {
		o := &obs[k]
		mid := o.Start + (o.End-o.Start)/2
		for ; next < len(events) && events[next].t < mid; next++ {
			process(events[next])
		}
		held := func(r *resReq) int64 {
			return r.prompt + int64(sort.Search(len(r.times), func(i int) bool { return r.times[i] >= mid }))
		}
		var resident int64
		if slots == nil {
			for r := range inFlight {
				resident += held(r)
			}
		} else {
			for _, r := range reqs {
				if r.slot >= 0 {
					resident += held(r)
				}
			}
			for i, b := range slots.busy {
				if !b {
					resident += slots.retained[i]
				}
			}
		}
		o.PrefillResident = o.PrefillTokens * float64(resident)
		o.DecodeResident = o.DecodeSeqs * float64(resident)
	}
	// Finish the run: every request ends, leaving its tokens behind.
	for ; next < len(events); next++ {
		process(events[next])
	}
}
