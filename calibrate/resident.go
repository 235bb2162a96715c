package calibrate

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// Prompt lengths of the requests LiveOptions.ResetSlots sends: short
// before a configuration's first repeat, long before the next, so that
// idle slots hold little, then much. Each leaves its prompt + 1 tokens
// (an engine whose chat template alone is longer makes the short one
// that long). The short fill is 16 tokens, nearly nothing, so that first
// repeats see an engine close to a fresh one: with 64, profiles of the
// CPU test engine over-predicted a fresh engine's prompts by 14–52%
// (256 to 1,024 tokens), with 16 by 4–12%. The long fill is 256 tokens:
// 512 fitted and predicted no better and took 25% longer (BENCHMARKS.md,
// "Second-repeat slot fills").
const (
	ResetPromptTokens     = 16
	LongResetPromptTokens = 256
)

// Engines by the name calibrate records (--engine, the traces' engine),
// matched at its start, whatever the case: those with a fixed number of
// sequence slots sharing one KV cache, and paged ones, whose sequence
// limit (max_num_seqs) the concurrency ramp finds as a hard limit too.
var (
	slotEngines  = []string{"llama.cpp", "llamacpp", "llama-server", "llamafile", "ollama"}
	pagedEngines = []string{"vllm", "sglang", "tgi", "text-generation-inference", "tensorrt-llm", "trtllm", "lmdeploy", "transformers-cb"}
)

// pagedEngine says what in the metadata of the calibration's runs (not
// those on an engine of their own, RunResult.Slots) names a paged engine:
// its name, unless it names an engine of slots, else a KV capacity it
// reported on /metrics (only vLLM and SGLang report one). "" when nothing
// does: an engine of slots, or one not known, whose hard limit the ramp
// takes for its slots.
func pagedEngine(runs []*RunResult) string {
	for _, r := range runs {
		name := strings.ToLower(strings.TrimSpace(r.Meta.Engine))
		switch {
		case r.Slots > 0 || name == "":
		case slices.ContainsFunc(slotEngines, func(e string) bool { return strings.HasPrefix(name, e) }):
			return ""
		case slices.ContainsFunc(pagedEngines, func(e string) bool { return strings.HasPrefix(name, e) }):
			return fmt.Sprintf("engine %q", r.Meta.Engine)
		}
	}
	for _, r := range runs {
		v, ok := r.Meta.Extra[ReportedKVKey]
		if r.Slots > 0 || !ok {
			continue
		}
		if kv, err := ParseReportedKV(v); err == nil && (strings.HasPrefix(kv.Source, "vllm:") || strings.HasPrefix(kv.Source, "sglang:")) {
			return fmt.Sprintf("KV capacity reported on /metrics (%s)", kv.Source)
		}
	}
	return ""
}

// slotEngineName is the engine name in the runs' metadata (not those on
// an engine of their own) that names an engine of slots, "" when none
// does: then the ramp's limit is taken for slots by assumption.
func slotEngineName(runs []*RunResult) string {
	for _, r := range runs {
		name := strings.ToLower(strings.TrimSpace(r.Meta.Engine))
		if r.Slots == 0 && slices.ContainsFunc(slotEngines, func(e string) bool { return strings.HasPrefix(name, e) }) {
			return r.Meta.Engine
		}
	}
	return ""
}

// unknownEngine is the first engine name in the runs' metadata, "" when
// they name none.
func unknownEngine(runs []*RunResult) string {
	for _, r := range runs {
		if e := strings.TrimSpace(r.Meta.Engine); r.Slots == 0 && e != "" {
			return e
		}
	}
	return ""
}

// NameEngine names engine (name and version) the engine of the runs
// whose traces name none: a refit told it (by --engine, or by the profile
// it refits) decides a paged engine from it as the calibration that knew
// it did (pagedEngine).
func NameEngine(runs []*RunResult, engine string) {
	if engine = strings.TrimSpace(engine); engine == "" {
		return
	}
	for _, r := range runs {
		if r.Meta.Engine == "" {
			r.Meta.Engine = engine
		}
	}
}

// slotCells is the cells per slot of the slot cache calibration replays:
// more than any calibration run fills, so that placement never wraps.
const slotCells = 1 << 14

// newSlotCache is the cache of a freshly started engine with n slots.
func newSlotCache(n int) *sim.SlotCache { return sim.NewSlotCache(n, n*slotCells) }

// runPrompts says how the prompts of one run open, for the slot cache's
// choice of slot and what it keeps (the prefix a slot's prompt shares with
// the new one). With the run's salt and text model (RunResult.Salt) each
// prompt's opening is rebuilt token by token (keys); without (traces
// written before they were recorded) the requests of a run share shared
// tokens, the replay's run tag, and key tells runs apart (shared 0:
// nothing beyond the template).
//
// Rows that carry prefix hashes (a verification run's trace) open with
// shared text per hash block instead (replay.PromptBuilder); block is the
// tokens one hash covers (the trace's block size; 0: none).
type runPrompts struct {
	key    uint64
	shared int32
	salt   uint64
	text   replay.TextModel
	block  int
}

// openingBytes is how much of a prompt's text keys identifies: the run
// tag and the start of the text after it, where two prompts of the replay
// can agree.
const openingBytes = 48

// keys identifies the opening tokens of the prompt the replay built for
// row idx of the run, one key per token: the text model's Prefix tokens
// (the same in every prompt; at least one, BOS), then the text's. Tokens
// are cut from the text at 1/TokensPerByte bytes each, so two prompts
// share as many keys as tokens, within one token. It is nil when the
// prompt cannot be rebuilt (no salt, or idx < 0).
func (p runPrompts) keys(idx int, r *traces.Request) []uint64 {
	if p.hashed(r) {
		return r.PrefixHashes
	}
	tpb := p.text.TokensPerByte
	if p.salt == 0 || idx < 0 || !(tpb > 0) {
		return nil
	}
	pre := max(1, int(math.Round(p.text.Prefix)))
	text := replay.NewPromptBuilder(p.text, 0, p.salt).Build(nil, idx, r)
	text = text[:min(len(text), openingBytes)]
	n := int(float64(len(text)) * tpb)
	keys := make([]uint64, pre, pre+n)
	for i := range keys {
		keys[i] = uint64(i)
	}
	for j := range n {
		lo, hi := int(float64(j)/tpb), min(len(text), int(float64(j+1)/tpb))
		h := fnv.New64a()
		h.Write(text[lo:max(hi, lo+1)])
		keys = append(keys, h.Sum64()|1<<63) // never equal to a template key
	}
	return keys
}

// hashed says that r's keys are its prefix hashes, one per block.
func (p runPrompts) hashed(r *traces.Request) bool { return p.block > 0 && len(r.PrefixHashes) > 0 }

// take gives a request of prompt tokens of run p, opening with keys (nil:
// unknown), its slot; keys are per block when hashed.
func (p runPrompts) take(c *sim.SlotCache, prompt int32, keys []uint64, hashed bool) (slot int, cached int32) {
	switch {
	case hashed:
		return c.Take(prompt, keys, p.block)
	case keys != nil:
		return c.Take(prompt, keys, 1)
	case p.shared <= 0:
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
			s, cached := p.take(c, int32(prompt), nil, false)
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
	cached    int32    // prompt tokens its slot already held
	keys      []uint64 // its opening tokens (runPrompts.keys)
	hashed    bool     // keys are prefix hashes (runPrompts.hashed)
	whole     bool     // step recovery charged its prompt whole: no cached count from the engine
	times     []int64
	slot      int // -1: none (not started, or no slot was free)
}

// annotateResident sets PrefillResident and DecodeResident of obs (one
// run's recovered steps, in time order) from the KV tokens each step
// attends over.
//
// With a slot cache (llama.cpp, Ollama) that is the cells the step
// attends over (sim.SlotCache), found by replaying the run through the
// cache the earlier runs left: a request takes its slot and its prompt
// goes into the cache in the step that makes its first token, one cell
// goes in per later token, and it gives the slot back at its last token.
// The cache carries over to the next run. Tokens that arrive within tol
// of each other are placed together, as the one engine step that made
// them (SlotCache.Prefill); placing them from the token times rather than
// the recovered steps keeps the cache right when step recovery drops a
// step. A step's tokens arrive from its End to tol after it
// (RecoverSteps' clustering). A request shares with the prompt a slot
// holds the opening p says they have in common.
//
// Why at the first token and not when sent: the engine gives a request
// its slot when the request reaches it, which can be long after the
// client sent it (Ollama's server admits requests to its runner one by
// one); requests sent together to an idle engine typically start as one
// prefill of the first, then one of all the others, and one that arrives
// after another finished takes that one's slot. The first token is the
// only sure sign of when it started.
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
		q := &resReq{send: send, end: r.TokenTimes[len(r.TokenTimes)-1], prompt: prompt, times: r.TokenTimes, slot: -1, whole: r.UsageCached <= 0}
		if cache != nil {
			q.keys, q.hashed = p.keys(rowIndex(r.ID), r), p.hashed(r)
		}
		reqs = append(reqs, q)
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
			o.setResident(float64(resident))
		}
		return
	}

	// Events in time order; at equal times a token is placed before its
	// request ends.
	const (
		evToken = iota
		evEnd
	)
	type event struct {
		t    int64
		kind int
		tok  int // token index for evToken
		r    *resReq
	}
	var events []event
	for _, r := range reqs {
		events = append(events, event{t: r.end, kind: evEnd, r: r})
		for i, t := range r.times {
			events = append(events, event{t: t, kind: evToken, tok: i, r: r})
		}
	}
	slices.SortStableFunc(events, func(a, b event) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.kind, b.kind))
	})
	tokens := make([]int32, cache.Slots())
	// Tokens that arrive within tol of each other came out of one engine
	// step, which placed them in one batch: the prompts of requests whose
	// first token it is, one token of the others (Prefill).
	var step []event
	var ending []*resReq // ended in the step not yet placed
	// Prompt tokens (and tokens × prompt) that the slots of the requests
	// starting in the current step already held, when known from their
	// prefix hashes. Only first tokens from the step's End on count: the
	// earlier ones are of steps recovery dropped.
	var kept, keptAttn float64
	keptFrom := int64(math.MaxInt64)
	flush := func() {
		defer func() {
			for _, r := range ending {
				cache.Release(r.slot)
				r.slot = -1
			}
			ending = ending[:0]
		}()
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
		if e.kind == evEnd {
			// Released once its step is placed: the other tokens of that
			// step may arrive after this one's end.
			ending = append(ending, e.r)
			if len(step) == 0 {
				flush()
			}
			return
		}
		if len(step) > 0 && (e.t > step[0].t+tol || slices.ContainsFunc(step, func(o event) bool { return o.r == e.r })) {
			flush()
		}
		if e.tok == 0 {
			// Its slot is taken as the step that prefills it starts; with
			// every slot busy (a release the model has not seen) it is
			// left out.
			e.r.slot, e.r.cached = p.take(cache, int32(e.r.prompt), e.r.keys, e.r.hashed)
			if e.r.slot >= 0 && e.r.hashed && e.r.whole && e.t >= keptFrom {
				kept, keptAttn = kept+float64(e.r.cached), keptAttn+float64(e.r.cached)*float64(e.r.prompt)
			}
		}
		if e.r.slot >= 0 {
			step = append(step, e)
		}
	}
	next := 0
	for k := range obs {
		o := &obs[k]
		kept, keptAttn, keptFrom = 0, 0, o.End
		for ; next < len(events); next++ {
			e := events[next]
			if e.t > o.End+tol {
				break
			}
			process(e)
		}
		flush()
		// Step recovery charged these prompts whole; the engine computed
		// them past what their slots kept.
		if kept > 0 && o.PrefillTokens >= kept {
			o.PrefillTokens -= kept
			o.PrefillAttn = max(0, o.PrefillAttn-keptAttn)
		}
		o.setResident(float64(cache.Attended()))
	}
	for ; next < len(events); next++ {
		process(events[next])
	}
	flush()
}

// setResident sets o's resident products for r resident tokens.
func (o *Observation) setResident(r float64) {
	o.PrefillResident = o.PrefillTokens * r
	o.DecodeResident = o.DecodeSeqs * r
	o.Resident = r
}
