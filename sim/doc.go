// Package sim is servesim's discrete-event simulator of LLM serving: on
// one device (Run), requests arrive from a trace, a scheduler policy forms
// a batch each engine step, a step-time model gives the step's duration,
// and every token of a step is emitted at the step's end. RunCluster puts
// replicas of such devices behind routers, optionally in two pools split by
// request length.
//
// # Reading guide
//
//   - config.go: Config, PolicyConfig, ParsePolicy and their validation.
//   - step.go: the StepTimer interface, the optional DecodeStretcher
//     (closed forms for runs of pure-decode steps) and the Linear
//     (calibrated) and Roofline (prior) models.
//   - engine.go: Run and the engine — advanceTo(t) runs every iteration
//     (step, stretch, idle wait) that starts before t, add hands it a
//     request; preemption and completion bookkeeping.
//   - cluster.go: ClusterConfig, PoolConfig, RunCluster — one queue of
//     replicas by next iteration time, length split, routing.
//   - router.go: round robin, least outstanding, prefix affinity.
//   - cluster_summary.go: ClusterSummary and how replicas aggregate.
//   - policy.go, policy_static.go (serial, fixed, token_budget),
//     policy_continuous.go (vLLM-style continuous batching).
//   - blocks.go: the paged KV block manager with the prefix cache.
//   - seq.go: the in-flight request and its small containers.
//   - metrics.go: Summary, latency distributions, KV occupancy.
//   - decisions.go: the optional JSONL scheduler decision log.
//
// # Time
//
// Event times are int64 nanoseconds from the trace start, like
// traces.Request. Step durations are float64 seconds from the StepTimer;
// the clock keeps the sub-nanosecond remainder of every advance, so a run
// of k steps taken one at a time and the same run jumped over with the
// closed form land on the same nanosecond (up to float rounding of the
// sum, far below 1 µs). Summary values are float64 seconds.
//
// # Event skipping
//
// Between events — an arrival (when it could be admitted), a completion, a
// decoding sequence needing a KV block when none is free, a prefill chunk —
// only decoding happens, and each step's shape is an affine function of the
// step index. When the StepTimer implements DecodeStretcher the engine
// jumps over such a stretch in O(1): decoding sequences advance lazily
// (their progress follows from the global step counter) and block needs are
// counted by the step at which each sequence crosses a block boundary.
// Config.NoSkip steps one iteration at a time; both give the same
// per-request times. Within a stretch the KV occupancy integral uses the
// trapezoid rule (exact at the stretch ends), also up to the window's end
// when a stretch of warm-up rows runs past it.
//
// # Memory model
//
// KV memory is TotalBlocks blocks of BlockSize tokens. Continuous batching
// allocates blocks as tokens are computed and preempts by recompute when
// they run out; static policies reserve prompt + max_new (within
// MaxModelLen) per request, less the last token, which is never cached, when
// the batch forms and report an OOM (OOMError) when a batch does not fit;
// the run stops there (in a cluster, on every replica at that instant), and
// the requests it did not serve get rows marked not run (Error "not run: …",
// no measurements).
// A request whose prompt + output can never fit is rejected on arrival.
// With Config.PrefixCaching the full prompt blocks covered by
// Request.PrefixHashes are shared by hash and, once unreferenced, stay
// cached until evicted least-recently-released first. Blocks are
// registered in the cache when allocated, so a request admitted in the
// same step as another with the same prefix can share its blocks. Only
// that lookup reuses a block: a block a request computes (its prompt's
// last block, which a lookup never hits, or one past its hit) is a new
// one from the free queue, as in vLLM, even when a free copy is cached.
//
// Continuous batching admits a waiting request once its first chunk's
// blocks are free, as vLLM V1 did before scheduler_reserve_full_isl (on by
// default in later releases) asked for the whole prompt's, and keeps
// vLLM's other defaults: no free-block watermark, and no
// long_prefill_token_threshold, so a chunk fills the budget left and at
// most one prompt is part-way through its prefill.
//
// Prompt and output lengths below 1 are simulated as 1.
//
// # Ownership
//
// Run reads its traces.Reader to the end and writes one traces.Request row
// per request to its traces.Writer, in input order, so a simulated trace
// reads back like any other; it closes neither. The input must be in
// arrival order. The simulator holds only requests in flight (waiting or
// running) and the rows finished behind the oldest of them, so traces of
// any length stream in bounded memory as long as the queue stays
// bounded. Rows passed to Writer.Write are reused after the call returns.
// Run is single-threaded and deterministic: the same input and Config give
// byte-identical rows and decision log. RunCluster follows the same rules;
// its replicas share the Config (and its StepTimer and Power values) of
// their pool, and a one-replica cluster writes exactly Run's rows.
package sim
