// Package telemetry records what a live run's hardware and engine were
// doing, beside the trace: GPU samples from NVML and the engine's queue
// gauges from its Prometheus /metrics page.
//
// # GPU
//
// StartNVML samples every NVIDIA GPU at an interval (memory used/total,
// power, the total-energy counter, SM utilisation, SM and memory clocks)
// and writes one CSV row per device per round. GPURecorder.Stop returns a
// GPUSummary: device-seconds (devices × wall time from the first to the
// last sample), energy in joules (the delta of the hardware energy counter
// when the first and last samples have it and it never goes back — a
// read missed in between does not matter — else the trapezoid integral of
// power between the first and last samples' reads, a read missed in
// between bridged), mean
// power, and JoulesPerToken. A device with neither leaves the energy
// unknown, and UnknownEnergy says which devices and why (no counter and
// no power reads; its reads stopped at a time, as when a GPU falls off
// the bus). The recorder samples once at Start and once
// at Stop, so the wall time covers the whole recording. Between gives the
// same over an interval of it (a run's measured window), on the monotonic
// clock the samples are stamped with: the energy counter interpolated at
// the interval's ends, else the power integral; an interval the samples
// do not reach on both sides is not measured. Its Idle names a device
// whose SM utilization read 0% and whose memory used did not change over
// the interval: in a window where requests completed, a GPU the engine
// did not run on, whose idle power would pass for the run's energy.
//
// Without an NVIDIA driver StartNVML returns an error wrapping ErrNoDriver
// and a nil recorder whose Stop is safe: log the error once and carry on.
// Whatever was not measured is NaN (floats) or Missing (-1, integers),
// never zero; GPUSummary's JSON writes those as null.
//
// The summarising logic is independent of NVML: StartGPU takes any
// Source (one method, Sample), and SummarizeGPU works on samples you
// already have.
//
// # Engine metrics
//
// StartScrape polls the engine's /metrics page (Prometheus text format,
// parsed by ParseMetrics) and maps the gauges of vLLM, SGLang, TGI and the
// llama.cpp server to running requests, waiting requests and KV-cache
// usage (a fraction in [0, 1]; empty where the engine exports none: TGI,
// and llama.cpp's server since it dropped kv_cache_usage_ratio in May
// 2025); see EngineStateOf. An engine without /metrics (404, or 501 from
// llama.cpp without --metrics) is reported once through ErrNoMetrics and
// not polled again. A page with a malformed line keeps the lines that
// parse, and the first bad one is logged once. Scraper.Stop summarises every page read, and counts
// the scrapes that failed and the polls missed while a page slower than
// the interval came; Between, the pages read over an interval of the
// scrape (a run's measured window).
//
// # Files and units
//
// Both recorders write CSV with a header row to a temporary file beside
// the path (internal/atomicfile), flushed after every round so a crash
// loses at most one round and leaves the rest there. Publish, after Stop,
// puts the file at its path once the trace it belongs with is in place; a
// run whose trace is not written calls Discard (or Keep, beside rows kept
// in a partial file), so an earlier run's file stays whole at the path.
// SidecarPath names the files beside a trace ("run.parquet" →
// "run.gpu.csv", "run.engine.csv"). Times are
// t_ns, nanoseconds since the recorder's Origin (pass the trace's start to
// line rows up with trace arrivals), and unix_ns. An empty cell is a
// value that was not measured. Power is in W, energy in mJ (the NVML
// counter's unit) in the file and J in summaries, memory in bytes.
//
// Recorders own their files and goroutines until Stop, which is safe to
// call more than once and on a nil recorder, as are Publish, Discard and
// Keep.
package telemetry
