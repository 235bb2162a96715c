package calibrate

import (
	"fmt"
	"math"
	"net/http"
	"sort"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
)

// RecoverSettings tunes RecoverSteps. A nil *RecoverSettings, and zero
// fields, mean the documented defaults.
type RecoverSettings struct {
	// Tolerance is the clustering window in ns: token timestamps of
	// different requests within Tolerance of a cluster's first timestamp
	// belong to the same step boundary. 0 means ToleranceFraction × the
	// shortest inter-token gap of any request that is at least MinGap: a
	// request's gap is one step (± receive jitter), so this tracks the
	// shortest step. (The median gap is inflated by long prefill steps and
	// merges short decode steps.)
	Tolerance int64
	// ToleranceFraction scales the shortest gap when Tolerance is 0.
	// 0 means 0.5.
	ToleranceFraction float64
	// MinGap, ns: shorter gaps are read as tokens the client received
	// together, not as steps, when estimating the tolerance. 0 means
	// 100 µs (no engine step is that short).
	MinGap int64
}

// RecoverStats says what RecoverSteps saw and what it dropped.
type RecoverStats struct {
	Requests  int   // non-nil requests given
	Skipped   int   // requests without TokenTimes, or with some spread over a chunk of several tokens (not used)
	Chunked   int   // of Skipped: those whose chunks were not one token each (spreadTimes)
	Tokens    int   // token timestamps used
	Clusters  int   // step boundaries found
	Steps     int   // observations appended
	Tolerance int64 // clustering window used, ns

	Coalesced int // boundaries dropped: a request had ≥2 tokens there, or one of its steps may have ended there unseen (the first of such tokens)
	Tainted   int // boundaries dropped: a request without token times was running then
	NoStart   int // boundaries dropped: start unknown (no send time) or not before the end
	Resumed   int // request-steps read as a recompute after preemption (a gap in a request's steps)
	FromIdle  int // observations that start at a send time (engine idle before)
}

// addCounts adds st's counts to t; Tolerance, a window and not a count,
// is left to the caller.
func (t *RecoverStats) addCounts(st RecoverStats) {
	t.Requests += st.Requests
	t.Skipped += st.Skipped
	t.Chunked += st.Chunked
	t.Tokens += st.Tokens
	t.Clusters += st.Clusters
	t.Steps += st.Steps
	t.Coalesced += st.Coalesced
	t.Tainted += st.Tainted
	t.NoStart += st.NoStart
	t.Resumed += st.Resumed
	t.FromIdle += st.FromIdle
}

type tokenEvent struct {
	t   int64
	req int32
	k   int32 // token index within the request
}

type recReq struct {
	prompt, cached float64
	send           int64 // Missing when unknown
	clusters       []int32
}

// RecoverSteps reconstructs engine steps of one live run from the
// per-token timestamps of its requests and appends one Observation per
// recovered step to dst, in time order. It returns the extended slice.
//
// The method rests on these assumptions, which hold for vLLM/SGLang-style
// engines without speculative decoding:
//
//   - one engine served the run (no replicas, no pipeline parallelism);
//   - batching is iteration-level: every running request takes part in
//     every step and emits exactly one token at the step's end;
//   - a request's first token closes its prefill step, and the whole
//     uncached prompt is computed in that one step (chunked prefill over
//     several steps is not visible in token times and is not modelled:
//     the last chunk's step is charged the whole prompt);
//   - steps run back to back while any request is running or waiting.
//
// All token timestamps of the run are merged and clustered: a timestamp
// within the tolerance (see RecoverSettings) of a cluster's first
// timestamp joins that cluster. Each cluster is a step boundary b_i,
// located at its earliest timestamp (client receive delays are
// non-negative). The step ending at b_i consists of the requests that
// emit a token at b_i:
//
//   - a request emitting its first token was prefilling: it adds
//     prompt−cached tokens to PrefillTokens and (prompt−cached)×prompt to
//     PrefillAttn (prompt = UsagePrompt, else PromptTokens; cached =
//     UsageCached when known);
//   - a request that emitted its previous token at b_{i−1} was decoding:
//     it adds 1 to DecodeSeqs and prompt+k to DecodeContext, where k is
//     the number of tokens it emitted before (its context when the step
//     ran);
//   - a request whose previous token came earlier than b_{i−1} was not
//     running in between, so it was preempted and resumed by recompute:
//     it adds prompt+k tokens to PrefillTokens and (prompt+k)² to
//     PrefillAttn (counted in RecoverStats.Resumed).
//
// The step starts at b_{i−1} when some request of the step was already
// present then (decoding, or sent before b_{i−1}); otherwise the engine was
// idle and it starts at the latest send time (ActualSend, else
// ScheduledSend, else Arrival) of its requests, and FromIdle is set; such
// steps include the request's network and HTTP latency.
//
// Boundaries are dropped, and counted in the stats, when a request has two
// or more tokens in one cluster (a step boundary is hidden from that
// request: the client received tokens of two steps together), and with
// them every boundary where the hidden step may have ended (after the
// request's token before, or after its send for its first token), when a
// request without TokenTimes was running (its ActualSend..LastToken span
// covers the boundary, so the batch is under-counted; a failed one from
// its send to its FailTime, or to the end when that is Missing, unless it
// got no response and did not time out: refused or closed, it never
// reached the engine), or when the start is unknown.
// Requests without TokenTimes are otherwise skipped. So are, and they
// taint the boundaries from their send to their last token alike,
// requests whose Chunks show that a chunk after the first carried several
// tokens: the times of those tokens were spread across the gap before the
// chunk and mark no step boundary; and requests with fewer tokens than
// chunks (a usage count below the stream), whose times fall on some of
// their chunks only. Token times of a request must not
// decrease.
func RecoverSteps(dst []Observation, reqs []*traces.Request, settings *RecoverSettings) ([]Observation, RecoverStats, error) {
	var st RecoverStats
	var s RecoverSettings
	if settings != nil {
		s = *settings
	}
	if s.Tolerance < 0 {
		return dst, st, fmt.Errorf("calibrate: recover steps: tolerance = %d ns, must be >= 0", s.Tolerance)
	}
	if f := s.ToleranceFraction; !(f >= 0) || math.IsInf(f, 0) {
		return dst, st, fmt.Errorf("calibrate: recover steps: tolerance fraction = %g, must be finite and >= 0", f)
	}
	if s.ToleranceFraction == 0 {
		s.ToleranceFraction = 0.5
	}
	if s.MinGap < 0 {
		return dst, st, fmt.Errorf("calibrate: recover steps: min gap = %d ns, must be >= 0", s.MinGap)
	}
	if s.MinGap == 0 {
		s.MinGap = 100_000
	}

	var (
		rs     []recReq
		events []tokenEvent
		minGap int64
		taints [][2]int64
	)
	for _, r := range reqs {
		if r == nil {
			continue
		}
		st.Requests++
		if spreadTimes(r) {
			// Some of its times are not when a token arrived: they do not
			// mark step boundaries, but it ran in every step in between.
			st.Skipped++
			st.Chunked++
			start := r.ActualSend
			if start == traces.Missing {
				start = r.TokenTimes[0]
			}
			taints = append(taints, [2]int64{start, r.TokenTimes[len(r.TokenTimes)-1]})
			continue
		}
		if len(r.TokenTimes) == 0 {
			st.Skipped++
			switch {
			case r.ActualSend != traces.Missing && r.LastToken != traces.Missing && r.LastToken >= r.ActualSend:
				taints = append(taints, [2]int64{r.ActualSend, r.LastToken})
			case r.ActualSend != traces.Missing && r.Error != "" &&
				(r.HTTPStatus == http.StatusOK || r.HTTPStatus == traces.Missing && replay.ErrorKind(r.Error) == replay.KindTimeout):
				// Failed after its stream began (a timeout, a reset), or
				// timed out waiting for it (an engine may answer only with
				// the first token): it may have run until the failure was
				// seen, or to the end of the run in a trace that does not
				// record when. One that got no response otherwise
				// (refused, closed) never reached the engine.
				end := int64(math.MaxInt64)
				if r.FailTime != traces.Missing && r.FailTime >= r.ActualSend {
					end = r.FailTime
				}
				taints = append(taints, [2]int64{r.ActualSend, end})
			}
			continue
		}
		prompt := float64(r.PromptTokens)
		if r.UsagePrompt != traces.Missing {
			prompt = float64(r.UsagePrompt)
		}
		if prompt < 0 {
			return dst, st, fmt.Errorf("calibrate: recover steps: request %q: prompt length %g < 0", r.ID, prompt)
		}
		cached := 0.0
		if r.UsageCached > 0 {
			cached = min(float64(r.UsageCached), prompt)
		}
		send := r.ActualSend
		if send == traces.Missing {
			send = r.ScheduledSend
		}
		if send == traces.Missing {
			send = r.Arrival
		}
		ri := int32(len(rs))
		for k, t := range r.TokenTimes {
			if k > 0 {
				g := t - r.TokenTimes[k-1]
				if g < 0 {
					return dst, st, fmt.Errorf("calibrate: recover steps: request %q: token %d at %d ns is before token %d at %d ns", r.ID, k, t, k-1, r.TokenTimes[k-1])
				}
				if g >= s.MinGap && (minGap == 0 || g < minGap) {
					minGap = g
				}
			}
			events = append(events, tokenEvent{t: t, req: ri, k: int32(k)})
		}
		rs = append(rs, recReq{prompt: prompt, cached: cached, send: send, clusters: make([]int32, len(r.TokenTimes))})
	}
	st.Tokens = len(events)
	if len(events) == 0 {
		return dst, st, nil
	}

	st.Tolerance = s.Tolerance
	if st.Tolerance == 0 {
		st.Tolerance = math.MaxInt64
		// A window past int64 is the widest one: converted, it would wrap.
		if w := s.ToleranceFraction * float64(minGap); w < math.MaxInt64 {
			st.Tolerance = int64(w)
		}
	}

	sort.Slice(events, func(i, j int) bool {
		a, b := events[i], events[j]
		if a.t != b.t {
			return a.t < b.t
		}
		if a.req != b.req {
			return a.req < b.req
		}
		return a.k < b.k
	})

	// Cluster: a cluster is [first, first+tolerance].
	type cluster struct {
		t      int64 // earliest timestamp
		lo, hi int   // events[lo:hi]
	}
	var cs []cluster
	for i, e := range events {
		if len(cs) == 0 || e.t-cs[len(cs)-1].t > st.Tolerance {
			cs = append(cs, cluster{t: e.t, lo: i})
		}
		cs[len(cs)-1].hi = i + 1
		rs[e.req].clusters[e.k] = int32(len(cs) - 1)
	}
	st.Clusters = len(cs)
	// A request with two or more tokens in one cluster was in the batch of
	// a step whose boundary it did not see: the one that made the first of
	// them, after the cluster of its token before (after its send, for its
	// first token). Each boundary where that step may have ended is dropped
	// with the cluster itself: the request is missing from its batch.
	hidden := make([]bool, len(cs))
	for _, r := range rs {
		for k := 0; k+1 < len(r.clusters); k++ {
			c := r.clusters[k]
			if r.clusters[k+1] != c || (k > 0 && r.clusters[k-1] == c) {
				continue
			}
			switch {
			case k > 0:
				for j := r.clusters[k-1] + 1; j < c; j++ {
					hidden[j] = true
				}
			case r.send != traces.Missing:
				for j := c - 1; j >= 0 && cs[j].t > r.send; j-- {
					hidden[j] = true
				}
			}
		}
	}
	sort.Slice(taints, func(i, j int) bool { return taints[i][0] < taints[j][0] })

	lastPrompt := 0 // the latest boundary with a first token, kept or not
	for i, c := range cs {
		var o Observation
		o.End, o.Boundary, o.PromptBoundary = c.t, i+1, lastPrompt
		present := false // some request of the step was there at b_{i-1}
		latestSend := int64(traces.Missing)
		sendKnown := true
		coalesced := false
		resumed := 0
		for _, e := range events[c.lo:c.hi] {
			r := &rs[e.req]
			k := float64(e.k)
			if e.k+1 < int32(len(r.clusters)) && r.clusters[e.k+1] == int32(i) {
				coalesced = true
			}
			switch {
			case e.k == 0:
				n := r.prompt - r.cached
				o.PrefillTokens += n
				o.PrefillAttn += n * r.prompt
				if r.send == traces.Missing {
					sendKnown = false
				} else {
					latestSend = max(latestSend, r.send)
					if i > 0 && r.send <= cs[i-1].t {
						present = true
					}
				}
			case r.clusters[e.k-1] == int32(i-1):
				o.DecodeSeqs++
				o.DecodeContext += r.prompt + k
				present = true
			case r.clusters[e.k-1] < int32(i-1):
				n := r.prompt + k
				o.PrefillTokens += n
				o.PrefillAttn += n * n
				resumed++
				present = true
			default: // same cluster as the previous token: coalesced, counted above
			}
			if e.k == 0 {
				lastPrompt = i + 1
			}
		}
		if coalesced || hidden[i] {
			st.Coalesced++
			continue
		}
		switch {
		case present:
			o.Start = cs[i-1].t
		case sendKnown && latestSend != traces.Missing:
			o.Start = latestSend
			if i > 0 {
				o.Start = max(o.Start, cs[i-1].t)
			}
			o.FromIdle = true
		default:
			st.NoStart++
			continue
		}
		if o.Start >= o.End {
			st.NoStart++
			continue
		}
		if overlaps(taints, o.Start, o.End) {
			st.Tainted++
			continue
		}
		o.Seconds = float64(o.End-o.Start) * 1e-9
		st.Resumed += resumed
		if o.FromIdle {
			st.FromIdle++
		}
		dst = append(dst, o)
		st.Steps++
	}
	return dst, st, nil
}

// spreadTimes says that r's token times are not one per chunk from the
// second on: some were spread over a chunk that carried several tokens (a
// later chunk's tokens are recorded evenly across the gap since the chunk
// before; see replay): more tokens follow the first chunk's, which all
// share its arrival, than there were later chunks; or usage counted fewer
// tokens than chunks, and replay put them on some chunks only, so the
// steps of the others look like steps without r.
func spreadTimes(r *traces.Request) bool {
	n := len(r.TokenTimes)
	if r.Chunks <= 0 || n == 0 {
		return false
	}
	if int(r.Chunks) > n {
		return true
	}
	lead := 1
	for lead < n && r.TokenTimes[lead] == r.TokenTimes[0] {
		lead++
	}
	return n-lead > int(r.Chunks)-1
}

// RecoverRuns applies RecoverSteps to each run and sets Observation.Run to
// the run's index. The stats are summed (Tolerance is the last run's).
func RecoverRuns(dst []Observation, runs [][]*traces.Request, settings *RecoverSettings) ([]Observation, RecoverStats, error) {
	var total RecoverStats
	for i, run := range runs {
		n := len(dst)
		var st RecoverStats
		var err error
		dst, st, err = RecoverSteps(dst, run, settings)
		if err != nil {
			return dst, total, fmt.Errorf("run %d: %w", i, err)
		}
		for j := n; j < len(dst); j++ {
			dst[j].Run = i
		}
		total.addCounts(st)
		total.Tolerance = st.Tolerance
	}
	return dst, total, nil
}

// overlaps reports whether some span [a, b] in sorted-by-start spans
// intersects (start, end).
func overlaps(spans [][2]int64, start, end int64) bool {
	for _, s := range spans {
		if s[0] >= end {
			return false
		}
		if s[1] > start {
			return true
		}
	}
	return false
}
