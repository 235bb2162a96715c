// Package replay is servesim's live load generator and recorder: it sends
// the rows of a trace to an OpenAI-compatible streaming server and fills
// each row's observed columns.
//
// # Reading guide
//
//   - config.go: Config, DefaultConfig, Validate (errors name the field),
//     LoadSettings (JSON or TOML; the API key is never a setting).
//   - run.go: Run, the engine: a reader goroutine prepares rows (prompt
//     text and request body) ahead of time; the sender paces them; a
//     writer goroutine writes completed rows, counts them and flushes.
//     Calibrate fits the text model.
//   - pace.go: the absolute-clock pacer.
//   - prompt.go: PromptBuilder and TextModel.
//   - client.go: one streaming request: net/http + the sse package's
//     framing, token accounting, failure classification (Kind* constants).
//   - summary.go: Summary, Latency, Spread and their printouts.
//   - record.go: Record, the file-level driver behind `servesim record`:
//     crash-safe partial output, input-order rewrite, repeats.
//   - replaytest/: a fault-injecting fake server for tests and benchmarks.
//
// # Time
//
// Every time in a trace row is int64 nanoseconds from the run's start,
// read from Go's monotonic clock (time.Time differences; wall-clock jumps
// do not matter). Open loop: row i is due at start + Arrival × TimeScale,
// recorded as ScheduledSend (a row due past 2^32 s, the latest time a
// trace holds, ends the run with an error); the pacer (pace.go) sleeps on
// a Go timer until a margin before the due time, adapted to the timer's
// recent lateness (tens of µs when busy, up to ~1 ms when idle), then in
// the kernel (Linux) and spins on the clock for the last 100 µs. Lateness never accumulates,
// since each due time is absolute. The request is built before its due
// time; ActualSend is read just before it is handed to net/http, so
// schedule lag (ActualSend − ScheduledSend) includes goroutine start-up.
// A request's timeout runs from its send: its due time, or when it goes
// if later (a run behind schedule, a wait for the concurrency cap).
// Its p99 is reported and the run flagged when it exceeds LagLimit (1 ms).
// With a concurrency cap in open loop, a send that waits for a slot is
// late by the wait, and the lag shows it; but the flag judges the lag
// less the time the cap held the send (Summary.ClientLag), since that
// wait is the server's, not the client's. With SessionWait, a row with a
// session_id due before the previous row of its session (in trace order)
// has ended goes out when that row ends, in the goroutine it gets anyway,
// taking no concurrency slot while held; ScheduledSend is then that
// end, so the hold is not lag (Summary.SessionHold says how long), but
// the time the send takes to follow it is. A
// turn the sender reaches late, after the previous turn ended past its
// due time, is held until that end too: its lag runs from there.
// Closed loop: ScheduledSend is
// when a client picked the row up. Warm-up rows are sent like any other
// but left out of every statistic.
//
// # Metrics
//
// A row's OutputTokens is sent as max_tokens, at least 1: servers refuse
// 0, so a row of 0 measures at least one token; the Summary counts such
// rows (ZeroOutput) and the output's metadata says so (replay.max_tokens).
//
// TTFT and E2E run from ScheduledSend (the arrival, not when the client
// got round to it) to the first content chunk and to the last content
// chunk. A content chunk is one whose delta.content, reasoning text or
// completions text is non-empty; the role-only first chunk of chat streams
// is not. Token counts come only from the server's usage block
// (stream_options.include_usage): UsagePrompt, UsageOutput, UsageCached
// (prompt_tokens_details.cached_tokens, Missing when absent). Chunks counts
// content chunks. TokenTimes has exactly UsageOutput entries, or none
// (nil, not measured) when UsageOutput is above the bytes the stream
// carried: such tokens were not all streamed (hidden reasoning, or a false
// count), so their times were never seen. If every chunk carried
// cumulative usage (continuous usage stats, which Config.ContinuousUsage
// asks vLLM and SGLang for) the per-chunk counts are
// exact, the last chunk's count falling short of the total only by tokens
// that came without text (vLLM's EOS, in a last chunk of empty content),
// which are the last chunk's; otherwise usage tokens are apportioned to chunks in
// proportion to their text bytes, at least one per chunk when there are at
// least as many tokens as chunks. A chunk carrying k tokens spreads them
// evenly across the gap since the previous chunk, the last at the chunk's
// own arrival; the first chunk's tokens all get its arrival. Each chunk's
// time is when the read that delivered it returned.
//
// # Failures
//
// A request is never retried (net/http's transparent resend on a dead
// keep-alive connection is disabled too). Each failure is recorded in the
// row, as Error "<kind>: <detail>" (ErrorKind) plus HTTPStatus when a
// response arrived, with every metric left Missing so failures never reach
// latency statistics, and FailTime, when the failure was seen, for one
// that was sent (it may have run in the engine until then); the run goes
// on and the Summary counts failures by kind. Kinds: auth (401/403: names the key's environment variable and
// whether it was unset, empty or had whitespace, never its value),
// not_found (404: the URL called, plus a missing, doubled, mis-cased or over-long /v1
// base path), rate_limited (429), server_error (5xx), http_error (any
// other status; a redirect is not followed and names its Location),
// connection (refused, reset, cut mid-stream), timeout (Config.Timeout,
// send to last byte), no_done (the body ended without data: [DONE]),
// stream_error (an error object or event: error in the stream, or a
// finish_reason of "abort" or "error" in any chunk, even one followed by
// another reason: the engine ended it early),
// empty_choices (a chunk with empty choices that was not the usage chunk),
// no_usage, bad_stream (undecodable chunk; a chunk with several choices,
// or a choice of index other than 0, where a request asks for one; usage
// without content; a usage
// count that is negative, past int32, absent (no completion_tokens), zero
// completion tokens for a stream that carried content, cached tokens above
// prompt_tokens, or completion tokens above the max_tokens sent; more
// than 2 × max_tokens + 64 content chunks, as from a server that streams
// past max_tokens; more than 4 × max_tokens + 256 data events of any kind
// (SSE comment lines are not counted), as from a server that streams
// chunks without content and without end; an SSE line over 8 MiB, as from a server
// that never ends one),
// canceled (the run was interrupted, or stopped by a write error, which
// the error names).
//
// # Client
//
// The design names go-openai, and its wire types are used
// (ChatCompletionMessage, Usage, APIError), but requests and
// the SSE stream are handled with net/http directly: go-openai's Recv
// returns io.EOF both after [DONE] and when the body simply ends, so a
// missing [DONE] cannot be detected; its request structs cannot carry
// ignore_eos or continuous_usage_stats, and they drop temperature 0 (omitempty) so the server's
// default temperature would apply; and reads cannot be timestamped.
//
// # Prompts
//
// See PromptBuilder. The text model (tokens = a × bytes + b) is set in
// Config.Text or, when zero, calibrated once with three probe requests
// (Calibrate). Prompts are unique per request and per run (a random salt),
// except blocks of rows with PrefixHashes, whose text is a function of the
// hash and the run's salt, so prefix caches hit exactly where the trace
// says and nowhere else.
//
// # Output and crash safety
//
// Run writes rows in completion order to any traces.Writer and, if it is a
// traces.Flusher, flushes every Config.FlushEvery (≤ 1 s). Record writes
// them to PartialPath(out), an Arrow IPC stream (hard link to the writer's
// temporary file), so kill -9 loses at most the last flush interval of
// completed rows; read the leftover with traces.OpenTolerant, which drops
// a cut-off final message (its metadata says replay.status=partial). On
// completion (or interruption through ctx) Record rewrites the rows in
// input order to out, in out's format, atomically, and removes the
// partial file; a run interrupted before any row completed (the rows it
// cut short, canceled, do not count) writes no out,
// nor does one whose rows could not be written (a full disk), interrupted
// afterwards or not: the rows flushed before the error stay in the
// partial file, which its error names with how many of the rows written
// it holds (a failed flush loses the batch it was writing; a file left
// holding none is removed). The API key lives only in the client's memory and the
// Authorization header; errors and raw bodies (Config.SaveRaw) are
// scrubbed of it as well.
//
// # Ownership
//
// Run does not close its Reader or Writer. Rows passed to the Writer are
// owned by the run and not reused. A Summary is the caller's.
package replay
