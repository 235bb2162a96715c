package traces

// Missing marks a numeric observed field that was not measured. On disk it is
// an Arrow null; in Go it is -1 so that hot loops avoid pointers. Never store
// zero or an average for something that was not measured.
const Missing = -1

// Request is one row of a trace: what was (or will be) asked of the engine,
// and, when a live run or the simulator filled them, what was observed.
//
// Times are int64 nanoseconds from the trace start. Token counts are tokens
// of the target model.
type Request struct {
	// Input columns.
	ID           string
	Arrival      int64    // ns from trace start
	PromptTokens int32    // input length
	OutputTokens int32    // target output length, sent as max_tokens
	PrefixHashes []uint64 // one hash per KV block of the prompt (block size in Meta)
	SessionID    string   // "" = none
	Class        string   // class or tenant; "" = none
	Warmup       bool     // excluded from statistics
	SourceFailed bool     // the source trace recorded this request as failed

	// Observed columns. Missing (-1) or "" means not measured.
	ScheduledSend int64   // open loop: when the request was due; sim: arrival (closed loop: the issue)
	ActualSend    int64   // when the client sent it
	StartTime     int64   // sim: first scheduled by the engine
	FirstToken    int64   // first content token
	LastToken     int64   // last token
	TokenTimes    []int64 // per output token, ns from trace start; nil = not measured
	UsagePrompt   int32   // server usage.prompt_tokens
	UsageOutput   int32   // server usage.completion_tokens
	UsageCached   int32   // cached prompt tokens (server or sim)
	Chunks        int32   // content chunks received
	Preemptions   int32   // sim: times the request was preempted
	HTTPStatus    int32
	Error         string // "" = succeeded (when observed)
	FinishReason  string
	OutputText    string // generated text, only when asked to keep it
	// FailTime is when a failed request's failure was seen (a failed row
	// keeps no latency times, but it may have run in the engine until
	// then). Missing on success and in traces written before it existed.
	FailTime int64
}

// Reset clears r to an input-only request with every observed field Missing,
// keeping slice capacity for reuse.
func (r *Request) Reset() {
	hashes, times := r.PrefixHashes[:0], r.TokenTimes[:0]
	*r = Request{
		PrefixHashes:  hashes,
		ScheduledSend: Missing,
		ActualSend:    Missing,
		StartTime:     Missing,
		FirstToken:    Missing,
		LastToken:     Missing,
		TokenTimes:    times,
		UsagePrompt:   Missing,
		UsageOutput:   Missing,
		UsageCached:   Missing,
		Chunks:        Missing,
		Preemptions:   Missing,
		HTTPStatus:    Missing,
		FailTime:      Missing,
	}
	r.TokenTimes = r.TokenTimes[:0]
}

// ClearObserved sets every observed field to Missing, keeping the inputs.
func (r *Request) ClearObserved() {
	in := *r
	r.Reset()
	r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = in.ID, in.Arrival, in.PromptTokens, in.OutputTokens
	r.PrefixHashes = append(r.PrefixHashes, in.PrefixHashes...)
	r.SessionID, r.Class, r.Warmup, r.SourceFailed = in.SessionID, in.Class, in.Warmup, in.SourceFailed
	r.TokenTimes = nil // not measured, not "zero tokens"
}

// failedAt is FailTime on a failed row, else Missing: a success has no
// failure time, whatever a Request literal left there.
func (r *Request) failedAt() int64 {
	if r.Error == "" {
		return Missing
	}
	return r.FailTime
}

// SourceFailedReason is why a row the source trace marks failed is never
// served: the simulator rejects it and a live replay does not send it, both
// with this reason, so the two serve the same requests.
const SourceFailedReason = "failed in the source trace, which gives no lengths to serve (trace import --drop-failed leaves such rows out)"

// Observed reports whether a live run or the simulator attempted r.
func (r *Request) Observed() bool {
	return r.ActualSend != Missing || r.HTTPStatus != Missing || r.Error != "" || r.FirstToken != Missing
}

// Succeeded reports whether r was observed and completed without error.
func (r *Request) Succeeded() bool { return r.Observed() && r.Error == "" && r.LastToken != Missing }

// TTFT returns time to first token in ns, measured from the scheduled send
// time (the arrival) so that client lag counts against the server, or false.
func (r *Request) TTFT() (int64, bool) {
	if !r.Succeeded() || r.FirstToken == Missing {
		return 0, false
	}
	return r.FirstToken - r.origin(), true
}

// E2E returns arrival to last token in ns, or false.
func (r *Request) E2E() (int64, bool) {
	if !r.Succeeded() {
		return 0, false
	}
	return r.LastToken - r.origin(), true
}

// TPOT returns (E2E - TTFT) / (output tokens - 1) in ns, or false when fewer
// than two tokens were produced.
func (r *Request) TPOT() (float64, bool) {
	if !r.Succeeded() || r.FirstToken == Missing {
		return 0, false
	}
	n := r.outputCount()
	if n < 2 {
		return 0, false
	}
	return float64(r.LastToken-r.FirstToken) / float64(n-1), true
}

// ITLs calls f with each inter-token latency of a success: the gap in ns
// between consecutive output tokens' times (tokens a chunk carried
// together share its gap). Nothing when token times were not recorded.
func (r *Request) ITLs(f func(gap int64)) {
	if !r.Succeeded() {
		return
	}
	for i := 1; i < len(r.TokenTimes); i++ {
		f(r.TokenTimes[i] - r.TokenTimes[i-1])
	}
}

// QueueTime returns arrival to first scheduled in ns, or false.
func (r *Request) QueueTime() (int64, bool) {
	if !r.Succeeded() || r.StartTime == Missing {
		return 0, false
	}
	return r.StartTime - r.origin(), true
}

// ScheduleLag returns actual minus scheduled send in ns, or false.
func (r *Request) ScheduleLag() (int64, bool) {
	if r.ActualSend == Missing || r.ScheduledSend == Missing {
		return 0, false
	}
	return r.ActualSend - r.ScheduledSend, true
}

func (r *Request) origin() int64 {
	if r.ScheduledSend != Missing {
		return r.ScheduledSend
	}
	return r.Arrival
}

// ServedOutput is a successful request's output length, the one its
// throughput counts: the server's usage, else the tokens timed, else the
// target length.
func (r *Request) ServedOutput() int32 {
	switch {
	case r.UsageOutput != Missing:
		return r.UsageOutput
	case len(r.TokenTimes) > 0:
		return int32(len(r.TokenTimes))
	}
	return r.OutputTokens
}

// outputCount is the number of output tokens: the server's usage when known.
func (r *Request) outputCount() int32 {
	if r.UsageOutput != Missing {
		return r.UsageOutput
	}
	return int32(len(r.TokenTimes))
}
