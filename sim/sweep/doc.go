// Package sweep runs a measurement plan over the cross product of many
// configs and finds, for each, the highest load at which its latency SLO
// holds, what it costs there, where it saturates and where its knee is;
// it ranks the configs by cost and marks the Pareto fronts.
//
// # Reading guide
//
//   - spec.go: the sweep spec (TOML) — a base plan, [sweep] lists and
//     ranges, [slo], [search], [constraints], [prices] — and its checks.
//   - expand.go: the canonical cross product (Expand), per-strategy
//     applicability, skip_if conditions and automatic skips.
//   - capacity.go: the trace in memory (LoadTrace), the scaling reader, the
//     per-request SLO counter that aborts hopeless probes, and the capacity
//     search.
//   - knee.go: the load curve, Knee and Saturation.
//   - pareto.go: ParetoFront and Rank.
//   - run.go: Run (the worker pool), rows, candidates for verify.
//   - results.go: Row, the Parquet schema, WriteFile / ReadFile.
//   - shard.go: Shard and Merge.
//
// # Spec
//
//	base = "plan.toml"              # or inline [model] [batch] [device] [cost] [cluster]; inline keys override
//	[sweep]
//	"batch.strategy" = ["continuous", "fixed"]
//	"batch.max_num_seqs" = { from = 16, to = 512, factor = 2 }      # geometric
//	"device.gpu_memory_utilization" = { from = 0.8, to = 0.95, step = 0.05 }
//	"batch.batch_size" = [8, 16, 32]
//	[slo]
//	ttft_p99_ms = 2000
//	tpot_p99_ms = 50
//	goodput_min = 0.99
//	[constraints]
//	skip_if = ['batch.strategy == "serial" && device.count == 2']
//
// Keys (Keys lists them): batch.strategy, device.model, device.count,
// cluster.replicas, cluster.router, cluster.split_tokens,
// cluster.long_replicas, model.precision, model.max_new_tokens, device.max_model_len,
// device.block_size, device.gpu_memory_utilization, batch.prefix_caching,
// batch.batch_size (fixed), batch.max_token_budget (token_budget),
// batch.max_wait_ms (fixed, token_budget), batch.max_num_seqs,
// batch.max_num_batched_tokens, batch.chunked_prefill (continuous), and
// rate_scale. A key is crossed only with the strategies it applies to, so
// the product has no duplicates. Configs are numbered in a canonical order
// (Config.Index): strategies in the order given, then the applicable keys
// in the order above with the last varying fastest. rate_scale evaluates
// a config at fixed arrival-rate scales instead of searching for its
// capacity. A swept device.model other than the base plan's needs a price
// in [prices], and a price for a device no config runs on is refused.
//
// The cluster keys are the plan's optional [cluster] section (see package
// plan): a config with more than one replica or a length split runs
// sim.RunCluster, and holds device.count × every replica of every pool
// devices — for max_devices, device-seconds, cost and the per-device
// goodput. Swept cluster keys need the rest of the section in the base
// plan or the spec's inline [cluster] (router with replicas, long_replicas
// with split_tokens), or swept too. The legacy key replicas is an alias of
// cluster.replicas (in [sweep] and skip_if) that keeps its old meaning: one
// replica is a plan without [cluster] (unless other swept cluster keys
// give one), several sit behind
// least_outstanding unless the base plan names a router. Rows carry the
// cluster as router, split_tokens, long_replicas and split_on_prompt
// (null when not applicable); replicas counts every pool's replicas.
//
// Everything that can be wrong with a spec — an unknown key, an empty list
// or range, step ≤ 0, factor ≤ 1, from > to, an unknown strategy, model or
// device, a value that is not valid in a plan, a batch limit of a
// strategy the spec never names (batch_size in a continuous-only sweep),
// constraints that leave nothing to run — is reported by LoadSpec or Expand, naming the file and
// the key, before any simulation starts. Configs whose weights or KV cache
// do not fit, whose swept values break a rule between keys (e.g.
// max_num_batched_tokens below max_num_seqs, or below max_model_len without
// chunked prefill), or that the simulator would
// reject, are skipped and counted by reason.
//
// # Capacity, goodput, saturation, knee
//
// Scale s replays the trace with every arrival time divided by s (s = 2
// is twice the rate). At a scale the SLO holds when every P99 limit holds
// (nearest rank over the non-warmup requests, a rejected request counting
// as infinitely slow; a row the source trace marks failed, which the
// simulator rejects under every config, is left out like a warm-up row;
// a P99 over fewer than 100 requests is their slowest: FewRequestsForP99),
// the share of requests meeting every limit (goodput) is at least
// goodput_min, and no static batch ran out of memory. The capacity is
// found by doubling (or halving) from search.start_scale until the SLO
// changes, then bisecting geometrically until the bracket is within
// search.tolerance; it assumes the SLO, once
// broken, stays broken at higher scales. A probe stops as soon as the
// requests already finished break the SLO whatever the rest do, so probes
// far above capacity cost little. When rejected requests alone break the
// SLO, no scale can meet it and the config is infeasible at once.
// A config infeasible down to min_scale is not tried above start_scale,
// save a static batch that may wait to fill: one whose max_wait_ms, plus
// the prefill of a full batch of the trace's longest admitted prompts (a
// token budget's worth for token_budget), reaches a latency limit. A light
// load can break such a config's SLO while a heavier one meets it, so it
// is also tried at doublings above start_scale and its capacity does not
// hang on start_scale. (A batch of one, a fixed batch_size 1 or a token
// budget with room for a single request, is full at once and never
// waits.) Its note names the wait: always when max_wait_ms alone reaches
// the limit; when only the prefill takes it there (a generous bound), only
// where a lighter load was seen to break the SLO. If no scale held, the
// note also names the heavier loads a filled batch ran out of KV memory at.
//
// A static batch's last one never fills at any load: it holds the
// admitted requests left over from full batches (whole batch_size ones,
// or for token_budget batches taken in turn while their prompt + max_new
// fits the budget), each waiting max_wait_ms less the
// gap since the first one's arrival. Its first request, and those arriving
// within max_wait_ms less the limit of it at start_scale (a gap heavier
// loads only shrink), break the limit at every load; when they and the
// requests refused on arrival outnumber the requests a P99 lets break it,
// the config is not climbed and its note says that no heavier load meets
// the SLO.
//
// A capacity the SLO never broke above (max_scale, or max_probes ran out
// while doubling) is a lower bound: its note opens "capacity ≥"
// (Row.CapacityLowerBound).
//
// The load curve is the run at the capacity c plus runs at the grid scales
// start_scale·2^j within [c/2^curve_octaves_below, c·2^curve_octaves_above]
// (the grid the search brackets on, so its runs are reused). A curve run
// that fails (or a static batch's OOM) leaves its point off the curve and
// is named in the row's note; the row's results at c stand.
// A curve run below c that breaks the SLO (a batch waiting max_wait_ms to
// fill serves a trickle late) is named in the note too: the capacity is
// then no guarantee for every lighter load. Raw
// saturation is the curve point with the highest output tok/s; the tail
// penalty is model.TailPenalty($/1M out at c, $/1M out at saturation).
// The knee is the first curve point after which doubling the load adds
// less than knee_throughput_pct % throughput while P99 TTFT or E2E grows
// by more than knee_p99_pct %. Only grid points, a doubling apart, are
// judged: c between two of them is drawn but not judged, as a shorter
// step would pass the throughput test more easily and the P99 test less.
//
// # Results
//
// Run returns one Row per config of the shard (skipped ones too), by
// Index. WriteFile stores them as Parquet (one row group, zstd), with the
// spec's text and sha256, the trace's sha256, the settings and the shard
// in the key-value metadata; ReadFile and ReadResults read them back.
// There are no timestamps, and rows do not depend on which worker ran
// what, so the same inputs give byte-identical files. Shard i/n holds the
// configs whose Index mod n is i; Merge checks that shards come from the
// same spec, trace and settings and cover every config once, and re-ranks:
// the merged file equals the unsharded one.
//
// # Units
//
// Latencies are seconds (the spec's SLO limits are milliseconds), rates
// are per second of simulated time, costs are USD per million tokens.
// Floats that could not be measured are NaN in Go and null on disk.
package sweep
