package sim

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// countWriter counts rows and keeps nothing: the cheapest streaming sink.
type countWriter struct{ n, tokens int64 }

func (w *countWriter) Write(r *traces.Request) error {
	w.n++
	w.tokens += int64(r.UsageOutput)
	return nil
}
func (w *countWriter) Close() error { return nil }
func (w *countWriter) Abort()       {}

// BenchmarkAzureConv runs the whole Azure 2023 conversation trace (19,366
// requests) through continuous batching, with and without event skipping.
// Target: ≤ 50 ms per run with skipping, on one core.
func BenchmarkAzureConv(b *testing.B) {
	reqs := loadAzure(b, "azure2023/AzureLLMInferenceTrace_conv.csv")
	slotTimer := realTimer
	slotTimer.Crd = 1e-9
	for _, mode := range []struct {
		name   string
		timer  StepTimer
		noSkip bool
		slots  int
	}{
		// realTimer: one H100-like device, busy 99.6% of the time (≈10
		// sequences decode together, so a stretch is short).
		{"h100/skip", realTimer, false, 0}, {"h100/noskip", realTimer, true, 0},
		// fastTimer: a faster TP group, busy ≈40%: long stretches.
		{"tp/skip", fastTimer, false, 0}, {"tp/noskip", fastTimer, true, 0},
		// llama.cpp-style: 256 slots of one KV cache (SlotCache), stepped
		// one iteration at a time.
		{"h100-slots/step", slotTimer, false, 256},
	} {
		b.Run(mode.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Step, cfg.TotalBlocks, cfg.NoSkip = mode.timer, 20000, mode.noSkip
			cfg.Slots, cfg.Cells = mode.slots, mode.slots*8192
			b.ReportAllocs()
			var steps, iters int64
			for b.Loop() {
				sum, err := Run(b.Context(), cfg, newSliceReader(reqs), &countWriter{})
				if err != nil || sum.Completed != int64(len(reqs)) {
					b.Fatalf("%v, %d completed", err, sum.Completed)
				}
				steps, iters = sum.Steps, sum.Steps-sum.StretchSteps+sum.Stretches
			}
			b.ReportMetric(float64(steps), "steps/op")
			b.ReportMetric(float64(iters), "iterations/op")
		})
	}
}

// BenchmarkAzureConvReference runs the same trace through refContinuous,
// the tests' plain simulator that advances every running request every
// step: what event skipping is measured against besides NoSkip.
func BenchmarkAzureConvReference(b *testing.B) {
	reqs := loadAzure(b, "azure2023/AzureLLMInferenceTrace_conv.csv")
	p := DefaultConfig().Policy
	b.ReportAllocs()
	for b.Loop() {
		ref := refContinuous(reqs, 16, 20000, p.MaxNumSeqs, int64(p.MaxNumBatchedTokens), p.ChunkedPrefill, realTimer)
		if len(ref) != len(reqs) {
			b.Fatalf("%d of %d requests", len(ref), len(reqs))
		}
	}
}

// BenchmarkMooncake runs the Mooncake conversation trace (12,031 requests,
// long shared prompts) through continuous batching with prefix caching,
// with and without event skipping.
func BenchmarkMooncake(b *testing.B) {
	reqs := loadMooncake(b, "mooncake/conversation_trace.jsonl")
	bothModes(b, func(b *testing.B, noSkip bool) {
		cfg := DefaultConfig()
		cfg.Step, cfg.TotalBlocks, cfg.NoSkip, cfg.PrefixCaching = fastTimer, 30000, noSkip, true
		b.ReportAllocs()
		var steps, iters int64
		for b.Loop() {
			sum, err := Run(b.Context(), cfg, mooncakeReader(reqs), &countWriter{})
			if err != nil || sum.Completed+sum.Rejected != int64(len(reqs)) {
				b.Fatalf("%v, %d completed", err, sum.Completed)
			}
			steps, iters = sum.Steps, sum.Steps-sum.StretchSteps+sum.Stretches
		}
		b.ReportMetric(float64(steps), "steps/op")
		b.ReportMetric(float64(iters), "iterations/op")
	})
}

// BenchmarkLongDecode: 2,000 requests with 1,000–4,000 output tokens at
// 0.5 req/s, where stretches are long: where skipping gains most (BENCHMARKS.md).
func BenchmarkLongDecode(b *testing.B) {
	bothModes(b, func(b *testing.B, noSkip bool) {
		cfg := DefaultConfig()
		cfg.Step, cfg.TotalBlocks, cfg.NoSkip = realTimer, 20000, noSkip
		runLongDecodes(b, cfg)
	})
}

// BenchmarkLongDecodeSlots runs the same requests on a llama.cpp-style
// engine of 16 slots (SlotCache, 320,000 cells): sixteen sequences decode
// side by side, one cell each a step, so a finished one leaves a hole
// every sixteenth cell and placement searches a fragmented cache.
func BenchmarkLongDecodeSlots(b *testing.B) {
	cfg := DefaultConfig()
	timer := realTimer
	timer.Cr, timer.Crd = 1e-8, 1e-10
	cfg.Step, cfg.TotalBlocks, cfg.Slots = timer, 20000, 16
	cfg.Policy.MaxNumSeqs = 16
	runLongDecodes(b, cfg)
}

// runLongDecodes times cfg on the long-decode workload of
// BenchmarkLongDecode.
func runLongDecodes(b *testing.B, cfg Config) {
	b.ReportAllocs()
	var steps int64
	for b.Loop() {
		in := newSynthReader(2000, 0.5)
		in.minOut, in.spanOut = 1000, 3000
		sum, err := Run(b.Context(), cfg, in, &countWriter{})
		if err != nil || sum.Completed != 2000 {
			b.Fatalf("%v, %d completed", err, sum.Completed)
		}
		steps = sum.Steps
	}
	b.ReportMetric(float64(steps), "steps/op")
}

// synthReader generates n requests on the fly (Poisson arrivals, Azure-like
// lengths) without allocating per request.
type synthReader struct {
	n, i            int
	minOut, spanOut int
	rng             *rand.Rand
	at              float64
	rate            float64
	cur             traces.Request
}

func newSynthReader(n int, rate float64) *synthReader {
	r := &synthReader{n: n, rng: rand.New(rand.NewPCG(42, 1)), rate: rate, minOut: 10, spanOut: 390}
	r.cur.Reset()
	return r
}

func (r *synthReader) Meta() traces.Meta { return traces.Meta{Source: "synthetic"} }
func (r *synthReader) Next() bool {
	if r.i >= r.n {
		return false
	}
	r.i++
	r.at += r.rng.ExpFloat64() / r.rate
	r.cur.Arrival = int64(r.at * 1e9)
	r.cur.PromptTokens = int32(50 + r.rng.IntN(1950))
	r.cur.OutputTokens = int32(r.minOut + r.rng.IntN(r.spanOut))
	return true
}
func (r *synthReader) At() *traces.Request { return &r.cur }
func (r *synthReader) Err() error          { return nil }
func (r *synthReader) Close() error        { return nil }

// Benchmark10M streams 10 million synthetic requests through continuous
// batching to a counting writer and reports wall time and peak RSS.
// Targets: ≤ 30 s, ≤ 2 GiB. Run with -bench 10M -benchtime 1x.
func Benchmark10M(b *testing.B) {
	n := 10_000_000
	if testing.Short() {
		n = 1_000_000
	}
	cfg := DefaultConfig()
	cfg.Step, cfg.TotalBlocks = realTimer, 20000
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		w := &countWriter{}
		sum, err := Run(b.Context(), cfg, newSynthReader(n, 5), w)
		if err != nil || w.n != int64(n) {
			b.Fatalf("%v: %d rows", err, w.n)
		}
		el := time.Since(start)
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(el.Seconds(), "s/run")
		b.ReportMetric(float64(ru.Maxrss)/1024, "peakRSS-MiB")
		b.Logf("%d requests in %v (%.0f ns/request), peak RSS %d MiB, heap sys %d MiB; steps %d, stretches %d, p99 TTFT %.3fs, util %.2f",
			n, el, float64(el.Nanoseconds())/float64(n), ru.Maxrss/1024, ms.HeapSys>>20, sum.Steps, sum.Stretches, sum.TTFT.P99, sum.Utilization)
	}
}

// BenchmarkSessionWait runs a synthetic conversation trace (20,000 rows in
// sessions of lognormal turns, 5 s mean think time) on the H100-like
// device through RunSessionWait, and the same rows through Run, so the
// cost of holding turns behind their session's previous one shows.
func BenchmarkSessionWait(b *testing.B) {
	reqs, meta := synthSessions(b, 20000)
	cfg := DefaultConfig()
	cfg.Step, cfg.TotalBlocks = realTimer, 20000
	for _, mode := range []struct {
		name string
		run  func(ctx context.Context, in traces.Reader, out traces.Writer) (*Summary, error)
	}{
		{"run", func(ctx context.Context, in traces.Reader, out traces.Writer) (*Summary, error) {
			return Run(ctx, cfg, in, out)
		}},
		{"sessionwait", func(ctx context.Context, in traces.Reader, out traces.Writer) (*Summary, error) {
			return RunSessionWait(ctx, cfg, SessionWait{}, in, out)
		}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			var steps, iters, held int64
			for b.Loop() {
				in := newSliceReader(reqs)
				in.meta = meta
				w := &heldCounter{}
				sum, err := mode.run(b.Context(), in, w)
				if err != nil || sum.Completed+sum.Rejected != int64(len(reqs)) || w.n != int64(len(reqs)) {
					b.Fatalf("%v, %d completed, %d rejected, %d rows", err, sum.Completed, sum.Rejected, w.n)
				}
				steps, iters, held = sum.Steps, sum.Steps-sum.StretchSteps+sum.Stretches, w.held
			}
			b.ReportMetric(float64(steps), "steps/op")
			b.ReportMetric(float64(iters), "iterations/op")
			b.ReportMetric(float64(held), "held/op")
		})
	}
}

// synthSessions draws n rows of multi-turn sessions into memory, so that
// a benchmark times the simulator and not the synthesis.
func synthSessions(b *testing.B, n int) ([]*traces.Request, traces.Meta) {
	b.Helper()
	c := traces.DefaultSynthConfig()
	c.Requests = n
	c.Arrival.Rate = 1.25 // sessions a second: ≈5 rows a second, as the Azure conversation trace
	c.Prompt = traces.LengthSpec{Kind: traces.LengthLognormal, Mean: 600, CV: 1, Max: 4000}
	c.Output = traces.LengthSpec{Kind: traces.LengthLognormal, Mean: 200, CV: 1, Max: 2000}
	c.Turns = traces.LengthSpec{Kind: traces.LengthLognormal, Mean: 4, CV: 1, Min: 1, Max: 16}
	c.ThinkTime = 5 // shorter than many turns take: those are held
	in, err := traces.Synthesize(c)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	reqs := make([]*traces.Request, 0, n)
	for in.Next() {
		r := *in.At()
		r.PrefixHashes = slices.Clone(r.PrefixHashes) // the reader reuses its row
		reqs = append(reqs, &r)
	}
	if err := in.Err(); err != nil {
		b.Fatal(err)
	}
	return reqs, in.Meta()
}

// heldCounter counts rows, and the held turns among them: those issued
// after their arrival.
type heldCounter struct{ n, held int64 }

func (w *heldCounter) Write(r *traces.Request) error {
	w.n++
	if r.ScheduledSend > r.Arrival {
		w.held++
	}
	return nil
}
func (w *heldCounter) Close() error { return nil }
func (w *heldCounter) Abort()       {}
