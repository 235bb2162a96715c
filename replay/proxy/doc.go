// Package proxy is a recording reverse proxy for OpenAI-compatible LLM
// servers: put it between real clients and the engine, and every
// /v1/chat/completions and /v1/completions request becomes a trace row
// (traces.Request) while the traffic passes through unchanged.
//
// # What passes through
//
// Request bodies are forwarded byte for byte (the proxy reads the body to
// describe it, a gzip or br Content-Encoding undone, then replays the same
// bytes); it never adds
// stream_options.include_usage or anything else. Headers pass through,
// Authorization included, Forwarded and X-Forwarded-* as the client sent
// them; only the hop-by-hop headers a proxy must drop are dropped, and Host
// becomes the upstream's. Accept-Encoding is the client's: the proxy asks
// for no compression of its own. Responses are copied as they arrive and
// flushed after every write, so each SSE event reaches the client when the
// engine sends it. Other paths (GET /v1/models, /health, /metrics, …) are
// forwarded and not recorded; so is a POST to a completion path with a
// trailing slash (/v1/chat/completions/), which servers redirect or
// refuse, and Stats counts those. Header values are never logged or stored,
// and a credential the server echoes in an error is masked in the row.
//
// # What is recorded
//
// Times are int64 ns since the proxy started (Meta.Extra["proxy.start"]
// holds that wall-clock instant): Arrival when the request headers came
// in, ActualSend when the request went upstream, FirstToken and LastToken
// when the first and last SSE chunk carrying output (content, reasoning or
// a tool call) passed through. A non-streamed response has no FirstToken;
// its LastToken is its last byte. A failure sent upstream has none of
// these but FailTime, when the exchange ended. The trace is in arrival
// order (ID is the arrival's sequence number).
//
// Tokens come from the server's usage block (UsagePrompt, UsageOutput,
// UsageCached; PromptTokens and OutputTokens copy them). When there is no
// usage block (a stream whose client did not ask for include_usage), the
// Usage* columns stay Missing and PromptTokens/OutputTokens are estimates
// (so is a count the block leaves out or sends as null: a usage block
// without completion_tokens is a success whose output is estimated, where
// record, which asked for the count, fails the request):
// ceil(bytes × TokensPerByte) of the canonical prompt (exact when the
// client sent token ids) and of the generated text, and at least one
// token per output chunk; with no output at all, 0 for a success whose
// body was read (it generated nothing), else (a failure, a body not read,
// or a finish_reason of "length": it ran to its cap, its output hidden)
// the most the request could generate: its cap (below) times n or
// best_of and the prompts a completions request batches, or 0 without one.
// With echo on /v1/completions each choice's text begins with its prompt
// (choices numbered prompt by prompt, n each), which the server did not
// generate: where the prompt is a string or a list of strings and the text
// starts with it, the echo is no output, so neither in the estimate nor an
// output chunk nor in the text by which TokenTimes are spread and bounded;
// so is vLLM's chat echo, each choice's content beginning with the last
// message's content (its text parts joined by newlines) where that message
// is an assistant's, or any with add_generation_prompt false. The echo of a
// token-id prompt cannot be told apart in the text: the estimate leaves
// out the prompt's ids once per choice instead (never below a token per
// output chunk). Meta.Extra["proxy.token_estimate"] says so in the file. A successful
// response whose body the proxy cannot read (an encoding it does not
// decode, a gzip or br stream whose bytes do not decode, so that whether
// it ended with data: [DONE] is unknown, malformed JSON) is estimated the
// same way and counted in
// Stats.Unparsed; so is a success without usage whose request body is not
// the JSON expected, its prompt estimated (and hashed) from the raw body
// when no prompt could be read from it. A stream with usage has TokenTimes
// (one compressed with gzip or br is decoded as its bytes arrive, so
// timed as a plain one; in another encoding it is not read at all, so
// has no FirstToken or TokenTimes, is counted in Stats.Unparsed only and
// is said in Meta.Extra["proxy.encodings"]):
// its usage tokens over the output chunks that carried them, as record
// times them (tokentime.Spread: by per-chunk usage where every chunk
// carried a count in range, else by text length, a negative running count
// failing nothing, as in record, where only the final usage can; the
// tokens of a last chunk without
// text, as vLLM's EOS, are the last output chunk's). Without usage, or
// with more tokens than the stream had bytes, TokenTimes is nil (not
// measured).
//
// PrefixHashes: the prompt is rendered to one canonical byte string (see
// renderPrompt: tools, then "<|role|>\ncontent\n" per message), cut into
// blocks of BlockSize/TokensPerByte bytes (the last one may be short, as
// with Mooncake hash_ids) and hashed as a chain (see PrefixHashes), so
// prompts that share a prefix share their leading hashes. Meta.BlockSize
// is BlockSize.
//
// SessionID comes from Config.SessionHeader, Class from
// Config.ClassHeader or else the request's "model". HTTPStatus is the
// upstream's status (Missing when it never answered); Error is "" on
// success (a 200, as record counts one), "HTTP 4xx: message", "HTTP 3xx:
// redirects to …", "HTTP 2xx" for another 2xx, "upstream: …",
// "client disconnected" (before the response ended: a stream ends at its
// data: [DONE], where a client may hang up), "cut at shutdown: …" (still
// running when ShutdownGrace ran out), "proxy internal error: …" (the
// proxy's handler panicked: the row still ends, source_failed when the
// request was not yet forwarded, and the panic reaches the server's log),
// "stream ended without data: [DONE]" (a stream cut short, though its
// HTTP response ended cleanly), "server error in the response: …" (a 200
// whose stream carried an error: an "error" field, vLLM's
// {"object":"error"}, or an SSE event named error, before data: [DONE]:
// what follows it is not read), "finish_reason \"abort\": the engine
// ended the request early …" (vLLM's end of an aborted or failed
// request, "abort" or "error", which still brings usage and [DONE]),
// "usage reports …" (a usage count no request can have: negative, past
// int32, completion_tokens = 0 for a response that carried output,
// cached_tokens above prompt_tokens, or completion_tokens above the
// request's cap, times n or best_of and the
// prompts a completions request batches, as record rejects them. The cap
// is max_completion_tokens on chat, else max_tokens; on completions
// max_tokens, or a larger max_completion_tokens sent beside it; a cap
// field of 0 or null is none. An echo request has no cap, and its echo,
// where it cannot be told apart, is no output; the row's size
// is then the estimate), and so on; a failed row's observed times, chunks and usage are
// empty, as record writes them. Prompt text is not stored unless KeepPrompts, which
// writes the messages or prompt of each row, by ID, to PromptsPath(Out).
//
// # Files and shutdown
//
// Rows go to an Arrow IPC stream while the proxy runs, Out +
// ".partial.arrows" (a hard link to its temporary file) whatever Out's
// format, .arrows included, each as its request finishes (in completion
// order, as record's partial file), and are flushed to disk every
// FlushInterval (at most 1 s), so a crash loses at most that much of the
// finished rows: a long generation holds back no other row. A request
// body not received within BodyTimeout is answered 408 and its row
// recorded as source_failed. A crashed session's rows read with
// traces.OpenTolerant, or trace convert, which puts them in arrival order,
// at that name, beside which a new session refuses to start; the stream's
// metadata says proxy.status=partial. Close writes the stream to Out's
// format in arrival order, proxy.status=complete. The prompts go to a temporary file beside
// PromptsPath(Out), fsynced with the rows, that Close renames into place
// once the trace is written: a session that fails or crashes leaves an
// earlier session's prompts file as it was (a failed conversion's error
// names where the rows and their prompts are left; a stream that fails to
// close, as on a full disk, keeps there the rows flushed before, and its
// error says how many of the rows written that is, or, with none, that
// they were not kept and the stream is removed). A write or flush that
// fails while the proxy runs ends the recording, not the forwarding: Close
// then writes no trace, as record does after a failed write, and keeps the
// rows written before it in the stream, its error saying how many, and how
// many requests finished unrecorded after it. Serve stops accepting on context cancel,
// lets in-flight requests (streams included) finish within ShutdownGrace,
// then closes the trace. A session in which no request finished (those
// cut at shutdown do not count) writes no trace, nor prompts file, and
// removes its staging stream: an earlier Out stays as it was, and
// Stats.NoneFinished says so.
package proxy
