// Package model is servesim's catalog of model architectures and hardware,
// together with the static models derived from them: KV-cache memory
// capacity, the roofline inputs of the simulator's prior step-time model,
// the device power model, and the cost model.
//
// The package is pure arithmetic over published figures. It knows nothing
// about traces, HTTP or the simulator itself, and must stay that way.
//
// # Units
//
// Every quantity uses one base unit, with no prefixes, unless its name says
// otherwise:
//
//   - memory and data: bytes (float64 where a product of shapes and
//     precisions; 1 GB = 1e9 bytes, 1 GiB = 2^30 bytes, and the two are never
//     mixed silently);
//   - time: seconds;
//   - bandwidth: bytes per second;
//   - compute: floating-point (or integer) operations, and operations per
//     second for throughput, dense (no 2:4 sparsity);
//   - power: watts; energy: joules (1 kWh = 3.6e6 J);
//   - money: US dollars (USD); prices are USD per device-hour, USD per kWh,
//     and USD per million tokens ("PerMTok").
//
// Token counts are plain numbers of tokens.
//
// # Where the numbers come from
//
// Architectures come from each model's Hugging Face config.json; hardware
// from NVIDIA datasheets, except device memory, which is the
// total that NVML reports (CUDA, and so a serving engine, sees a few
// hundred MiB less: 79.1–79.3 GiB of an H100's 79.6).
// Prices are approximate on-demand list prices and drift over time; every
// entry can be overridden from a TOML file with [Catalog.LoadTOML].
//
// # Cost model
//
// Cost per token has five factors: hardware amortization (the device price
// per hour times the devices and the wall time they are held), energy (the
// energy drawn times the price per kWh and the data-centre PUE), memory
// occupancy (the KV cache left beside the weights, which bounds concurrency:
// [ComputeCapacity]), batching efficiency (the tokens per second those
// devices serve, which divides the first two), and the tail penalty, the
// extra capacity needed to keep P99 latency within an SLO rather than
// running at saturation (see [TailPenalty]). [Prices.Cost] computes the
// estimated basis (device-hours plus energy) and, when API per-token prices
// are given, the billed basis.
package model
