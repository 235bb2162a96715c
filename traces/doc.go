// Package traces is servesim's trace store: the Request row, file-level
// Meta, streaming readers and atomic writers for Parquet, Arrow IPC, CSV
// and JSONL, importers for public LLM-serving traces, a synthetic trace
// generator, transforms and statistics.
//
// # Reading guide
//
//   - request.go, meta.go: the row and the file metadata.
//   - store.go, schema.go, arrowio.go, textio.go: Open / Create by
//     extension (.parquet .arrow .arrows .csv .jsonl).
//   - import*.go, sniff.go: Import(path, format, opts) for Azure 2023/2024,
//     BurstGPT v1 and v1.2/v2, Mooncake, Vidur, ShareGPT and servesim's own
//     files; Sniff guesses the format from the first line.
//   - synth.go: Synthesize(SynthConfig), the fixed-input matrix or an
//     arrival process with length distributions, shared prefixes and
//     multi-turn sessions.
//   - transform.go: Slice, Scale, Spread, Copy, WriteTrace, Convert.
//   - stats.go: ComputeStats / StatsBuilder.
//
// # Units
//
// Times are int64 nanoseconds from the trace start (the first request's
// timestamp when importing). Rates are requests per second. Token counts
// are int32; importers reject counts above DefaultMaxTokens (10,000,000)
// as absurd. Missing (-1) marks an observed numeric that was not measured;
// on disk that is a null or an empty cell, and readers refuse a literal
// negative observed number, -1 included.
//
// # Streaming and ownership
//
// Every Reader streams: Next / At / Err / Close, and the *Request returned
// by At is reused by the next Next (call Clone to keep one). Importers,
// the generator and the transforms all hold one row at a time, except
// Spread (and Import with ImportOptions.Spread), which buffers one group
// of equal arrivals, and Empirical, which holds one entry per distinct
// (prompt, output) pair. StatsBuilder uses fixed memory (about 1 MiB)
// plus, for the prefix reuse ratio, a set of every distinct block hash
// seen (about 20 bytes each). Whoever opens a Reader closes it;
// WriteTrace closes the Reader it is given. Writers are atomic: nothing
// appears at the destination until Close succeeds, and Abort (or any
// error in WriteTrace) leaves nothing behind.
//
// # Order and errors
//
// Importers reject a timestamp earlier than the previous row's ("arrival
// goes back in time") rather than sorting. Parse errors name the input as
// "file:line:column (column name)" and say what was expected.
//
// # Length estimates
//
// ShareGPT carries text, not token counts: lengths are estimated as
// ceil(UTF-8 bytes / 4) (ShareGPTBytesPerToken); its arrivals come from a
// seeded Poisson process.
package traces
