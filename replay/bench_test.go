package replay

// Load benchmark: the client on 2 cores against a stub server on others.
//
//	go test -c -o /tmp/replay.test ./replay
//	SERVESIM_STUB_ADDR=127.0.0.1:18080 SERVESIM_STUB_ITL=100ms taskset -c 2-15 /tmp/replay.test -test.run='^TestStubServer$' &
//	SERVESIM_BENCH_URL=http://127.0.0.1:18080/v1 GOMAXPROCS=2 taskset -c 0,1 /tmp/replay.test -test.run='^TestBenchLoad$' -test.v
//
// Knobs (env): SERVESIM_BENCH_RATE (requests/s, default 2000, Poisson
// arrivals), SERVESIM_BENCH_DURATION (default 20s), SERVESIM_BENCH_TOKENS
// (output tokens per request, default 50), SERVESIM_BENCH_CLOSED=N (closed
// loop with N clients instead), SERVESIM_BENCH_OUT (a path: keep the
// measured trace, to see when in the run sends came late). With the stub's
// 100 ms inter-token gap a request streams for 5 s, so 2,000 req/s holds
// 10,000 streams open. The test logs the summary, peak concurrent streams,
// and the client's CPU time (getrusage, user + system) per streamed token.

import (
	"bytes"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// TestStubServer serves the well-behaved fake engine on SERVESIM_STUB_ADDR
// until killed (benchmark helper).
func TestStubServer(t *testing.T) {
	addr := os.Getenv("SERVESIM_STUB_ADDR")
	if addr == "" {
		t.Skip("benchmark helper: set SERVESIM_STUB_ADDR")
	}
	itl, err := time.ParseDuration(envOr("SERVESIM_STUB_ITL", "100ms"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := replaytest.New(replaytest.Options{ITL: itl, TTFT: itl, Listener: l})
	defer srv.Close()
	srv.Config.SetKeepAlivesEnabled(true)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	select {
	case <-stop:
	case <-time.After(30 * time.Minute):
	}
}

func TestBenchLoad(t *testing.T) {
	url := os.Getenv("SERVESIM_BENCH_URL")
	if url == "" {
		t.Skip("load benchmark: set SERVESIM_BENCH_URL (see bench_test.go)")
	}
	rate, _ := strconv.ParseFloat(envOr("SERVESIM_BENCH_RATE", "2000"), 64)
	dur, _ := time.ParseDuration(envOr("SERVESIM_BENCH_DURATION", "20s"))
	tokens, _ := strconv.Atoi(envOr("SERVESIM_BENCH_TOKENS", "50"))
	closed, _ := strconv.Atoi(envOr("SERVESIM_BENCH_CLOSED", "0"))

	rng := rand.New(rand.NewPCG(1, 2))
	var in []*traces.Request
	for at := 0.0; at < dur.Seconds(); at += rng.ExpFloat64() / rate {
		r := &traces.Request{}
		r.Reset()
		r.ID = "b" + strconv.Itoa(len(in))
		r.Arrival = int64(at * 1e9)
		r.PromptTokens, r.OutputTokens = 200, int32(tokens)
		in = append(in, r)
	}
	if closed > 0 {
		in = in[:min(len(in), closed*3)]
	}
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.Model = url, "stub"
	cfg.Text = TextModel{TokensPerByte: 1, Overhead: 20}
	cfg.Timeout = time.Minute
	cfg.MaxIdle = 20000
	if closed > 0 {
		cfg.Arrival, cfg.Concurrency = Closed, closed
	}
	out, err := traces.Create(envOr("SERVESIM_BENCH_OUT", filepath.Join(t.TempDir(), "bench.arrows")), traces.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Abort()
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	t0 := time.Now()
	w := &countingWriter{Writer: out}
	s, err := Run(t.Context(), cfg, &sliceReader{rows: in}, w)
	wall := time.Since(t0)
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	if err != nil {
		t.Fatal(err)
	}
	cpu := tv(ru1.Utime) - tv(ru0.Utime) + tv(ru1.Stime) - tv(ru0.Stime)
	var sb strings.Builder
	s.Print(&sb)
	t.Logf("\n%s", sb.String())
	t.Logf("requests %d in %v (%.0f req/s offered); streamed tokens %d; peak concurrent streams %d; %d sends (%.2f%%) over %v late",
		len(in), wall.Round(time.Millisecond), rate, w.tokens, peakStreams(w.spans), w.late, 100*float64(w.late)/float64(len(in)), LagLimit)
	t.Logf("client CPU %.2f s (user %.2f, sys %.2f) = %.2f µs per token, %.0f%% of 2 cores; max RSS %d MiB",
		cpu.Seconds(), (tv(ru1.Utime) - tv(ru0.Utime)).Seconds(), (tv(ru1.Stime) - tv(ru0.Stime)).Seconds(),
		float64(cpu.Microseconds())/float64(max(w.tokens, 1)), 100*cpu.Seconds()/wall.Seconds()/2, ru1.Maxrss/1024)
	if s.Failed > 0 {
		t.Errorf("%d requests failed: %v", s.Failed, s.FailedByKind)
	}
	if os.Getenv("SERVESIM_BENCH_OUT") != "" {
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func tv(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }

// countingWriter counts tokens and stream spans on the way to a Writer.
type countingWriter struct {
	traces.Writer
	tokens int64
	spans  [][2]int64
	late   int // sends more than LagLimit behind schedule
}

func (w *countingWriter) Write(r *traces.Request) error {
	if r.UsageOutput > 0 {
		w.tokens += int64(r.UsageOutput)
	}
	if r.Succeeded() {
		w.spans = append(w.spans, [2]int64{r.ActualSend, r.LastToken})
	}
	if lag, ok := r.ScheduleLag(); ok && time.Duration(lag) > LagLimit {
		w.late++
	}
	return w.Writer.Write(r)
}

func (w *countingWriter) Flush() error { return w.Writer.(traces.Flusher).Flush() }

func peakStreams(spans [][2]int64) int {
	type ev struct {
		t int64
		d int
	}
	evs := make([]ev, 0, 2*len(spans))
	for _, s := range spans {
		evs = append(evs, ev{s[0], 1}, ev{s[1], -1})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			return int(a.t - b.t)
		}
		return a.d - b.d
	})
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.d
		peak = max(peak, cur)
	}
	return peak
}

// BenchmarkStream measures one streamed request of 256 tokens, client and
// in-process server together (allocations are the client's and server's).
func BenchmarkStream(b *testing.B) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	c := mustClient(b, &cfg)
	defer c.close()
	body := c.body(bytes.Repeat([]byte("a"), 100), 256)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		var r traces.Request
		r.Reset()
		r.OutputTokens = 256
		c.do(b.Context(), start, 0, &r, body)
		if r.Error != "" {
			b.Fatal(r.Error)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/256, "ns/token")
}

// BenchmarkClientCPU measures the client alone: the stub server runs in a
// child process (this test binary's TestStubServer), so this process's CPU
// time (getrusage, user + system) and allocations are the client's. It
// keeps SERVESIM_BENCH_STREAMS (default 200) streams of 50 tokens open,
// with 5 ms between tokens so that tokens mostly arrive one per read, as
// under load; client-µs/token is client CPU per streamed token, and
// user-µs/token its user-space part.
// SERVESIM_BENCH_STUB=host:port uses a stub server already running there
// instead (say, one pinned to other cores with taskset; started with
// SERVESIM_STUB_ITL=5ms).
//
//	go test ./replay -run '^$' -bench ClientCPU -benchtime 4000x -count 6
func BenchmarkClientCPU(b *testing.B) {
	const tokens = 50
	streams, _ := strconv.Atoi(envOr("SERVESIM_BENCH_STREAMS", "200"))
	addr := os.Getenv("SERVESIM_BENCH_STUB")
	if addr == "" {
		addr = startStub(b, "5ms")
	}
	cfg := testConfig(nil)
	cfg.BaseURL, cfg.Model = "http://"+addr+"/v1", "stub"
	cfg.MaxIdle = streams
	c := mustClient(b, &cfg)
	defer c.close()
	body := c.body(bytes.Repeat([]byte("a"), 200), tokens)
	var failed atomic.Int64
	var ru0, ru1 syscall.Rusage
	b.SetParallelism(max(streams/runtime.GOMAXPROCS(0), 1))
	b.ReportAllocs()
	start := time.Now()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var r traces.Request
		for pb.Next() {
			r.Reset()
			r.OutputTokens = tokens
			c.do(b.Context(), start, 0, &r, body)
			if r.Error != "" {
				failed.Add(1)
			}
		}
	})
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d requests failed", n)
	}
	user := tv(ru1.Utime) - tv(ru0.Utime)
	cpu := user + tv(ru1.Stime) - tv(ru0.Stime)
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(b.N*tokens), "client-µs/token")
	b.ReportMetric(float64(user.Nanoseconds())/1e3/float64(b.N*tokens), "user-µs/token") // the rest is the kernel's
}

// startStub runs TestStubServer in a child process with the given
// inter-token latency and returns its address once it accepts connections.
func startStub(b *testing.B, itl string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStubServer$")
	cmd.Env = append(os.Environ(), "SERVESIM_STUB_ADDR="+addr, "SERVESIM_STUB_ITL="+itl)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return addr
		}
		if time.Now().After(deadline) {
			b.Fatalf("stub server on %s did not start", addr)
		}
	}
}

func BenchmarkPromptBuild(b *testing.B) {
	pb := NewPromptBuilder(TextModel{TokensPerByte: 0.2, Overhead: 20}, 16, 7)
	r := &traces.Request{PromptTokens: 2000}
	var buf []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = pb.Build(buf[:0], i, r)
	}
}
