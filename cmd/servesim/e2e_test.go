package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/proxy"
	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

// The end-to-end tests run against a real OpenAI-compatible engine:
// `make test` builds Ollama, generates a small random-weight model and sets
// SERVESIM_ENGINE_URL and SERVESIM_ENGINE_MODEL (scripts/engine.sh).
func engine(t testing.TB) (url, model string) {
	t.Helper()
	url, model = os.Getenv("SERVESIM_ENGINE_URL"), os.Getenv("SERVESIM_ENGINE_MODEL")
	if url == "" || model == "" {
		liveUnavailable(t, "no engine: run `make test-e2e` (or scripts/engine.sh start and export its output)")
	}
	return url, model
}

// liveUnavailable skips a live test that has no engine, Ollama binary or
// port here, but fails it under CI=true: CI installs and starts the engine
// before the live tests (make test-e2e), so there a missing one is a broken
// run, not a host without an engine, and must not leave the run green.
func liveUnavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// synth writes a synthetic trace with the CLI and returns its path.
func synth(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return synthTrace(t, dir, "in.parquet", args...)
}

// openLoopPort is the port of TestE2EOpenLoop's own engine.
const openLoopPort = "11442"

// TestE2EOpenLoop replays 200 requests on their schedule. Its engine runs
// on a CPU of its own, apart from the client, as it does wherever the engine
// has its own machine: on shared CPUs the engine's compute threads delay the
// client's wake-ups by milliseconds (BENCHMARKS.md, "Live replay"), and the
// lag measured would be this host's rather than the client's.
func TestE2EOpenLoop(t *testing.T) {
	_, model := engine(t)
	url := freshEngineOn(t, openLoopPort, pinApart(t))
	dir := t.TempDir()
	in := synth(t, dir, "--requests", "200", "--arrival", "poisson", "--rate", "2", "--seed", "7",
		"--prompt", "uniform:32:256", "--output", "fixed:8")
	out := filepath.Join(dir, "out.parquet")
	if _, err := run(t, "record", "--trace", in, "--out", out, "--base-url", url, "--model", model,
		"--api-key-env", "SERVESIM_NO_KEY", "--arrival", "open", "--timeout", "2m"); err != nil {
		t.Fatal(err)
	}
	_, rows, err := traces.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 200 {
		t.Fatalf("%d rows, want 200", len(rows))
	}
	var lags []int64
	var late []string // the sends over 1 ms late: when they were due, and by how much
	for _, r := range rows {
		_, okT := r.TTFT()
		_, okP := r.TPOT()
		_, okE := r.E2E()
		if !okT || !okP || !okE {
			t.Errorf("request %s: TTFT/TPOT/E2E not all measured (error %q)", r.ID, r.Error)
			continue
		}
		if r.UsageOutput != r.OutputTokens || int(r.UsageOutput) != len(r.TokenTimes) {
			t.Errorf("request %s: usage %d completion tokens, asked %d, %d token times", r.ID, r.UsageOutput, r.OutputTokens, len(r.TokenTimes))
		}
		if r.UsagePrompt != r.PromptTokens {
			t.Errorf("request %s: server counted %d prompt tokens, the trace asked for %d", r.ID, r.UsagePrompt, r.PromptTokens)
		}
		lag, _ := r.ScheduleLag()
		lags = append(lags, lag)
		if lag >= 1_000_000 {
			late = append(late, fmt.Sprintf("%v late at %.3f s", time.Duration(lag), float64(r.Arrival)/1e9))
		}
	}
	slices.Sort(lags)
	// The host's own wake-up jitter still reaches the client, so the < 1 ms
	// target fails the test only with SERVESIM_STRICT_LAG=1 (see
	// BENCHMARKS.md); the measured p99 is always logged.
	p99 := lags[len(lags)*99/100]
	t.Logf("schedule lag p50 %v p99 %v max %v", time.Duration(lags[len(lags)/2]), time.Duration(p99), time.Duration(lags[len(lags)-1]))
	if p99 >= 1_000_000 {
		check := t.Logf
		if os.Getenv("SERVESIM_STRICT_LAG") != "" {
			check = t.Errorf
		}
		check("p99 schedule lag %v, want < 1 ms (sends over 1 ms late: %s)", time.Duration(p99), strings.Join(late, ", "))
	}
}

// closedLoop runs a closed loop at the given concurrency and returns the
// output throughput (tokens/s) and mean TPOT (ns).
func closedLoop(t *testing.T, url, model, in string, conc int) (tokPerSec, tpot float64) {
	t.Helper()
	out := filepath.Join(filepath.Dir(in), "closed"+strconv.Itoa(conc)+".parquet")
	if _, err := run(t, "record", "--trace", in, "--out", out, "--base-url", url, "--model", model,
		"--api-key-env", "SERVESIM_NO_KEY", "--arrival", "closed", "--concurrency", strconv.Itoa(conc),
		"--tokens-per-byte", "1", "--prompt-overhead", "20"); err != nil {
		t.Fatal(err)
	}
	_, rows, err := traces.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	first, last, tokens, n := int64(1<<62), int64(0), 0, 0
	for _, r := range rows {
		p, ok := r.TPOT()
		if !ok {
			t.Fatalf("request %s failed: %q", r.ID, r.Error)
		}
		tpot += p
		n++
		tokens += int(r.UsageOutput)
		first, last = min(first, r.ActualSend), max(last, r.LastToken)
	}
	return float64(tokens) / (float64(last-first) / 1e9), tpot / float64(n)
}

func TestE2EClosedLoopShowsBatching(t *testing.T) {
	url, model := engine(t)
	in := synth(t, t.TempDir(), "--requests", "16", "--prompt", "fixed:64", "--output", "fixed:48", "--seed", "3")
	tp1, tpot1 := closedLoop(t, url, model, in, 1)
	tp4, tpot4 := closedLoop(t, url, model, in, 4)
	t.Logf("concurrency 1: %.0f tok/s, TPOT %.1f ms; concurrency 4: %.0f tok/s, TPOT %.1f ms", tp1, tpot1/1e6, tp4, tpot4/1e6)
	if tp4 <= tp1*1.2 {
		t.Errorf("throughput at concurrency 4 (%.0f tok/s) is not above concurrency 1 (%.0f tok/s): no batching", tp4, tp1)
	}
	if tpot4 <= tpot1 {
		t.Errorf("TPOT at concurrency 4 (%.1f ms) is not above concurrency 1 (%.1f ms)", tpot4/1e6, tpot1/1e6)
	}
}

// TestE2EProxy records through the recording proxy: the proxy's trace must
// hold every request with the engine's token counts and shared prefixes
// hashed alike, and replaying it must reproduce the lengths.
func TestE2EProxy(t *testing.T) {
	url, model := engine(t)
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := proxy.DefaultConfig()
	cfg.Upstream = strings.TrimSuffix(url, "/v1")
	cfg.Out = filepath.Join(dir, "captured.parquet")
	cfg.TokensPerByte = 1
	cfg.BlockSize = 16
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := proxy.Serve(ctx, ln, cfg); done <- err }()

	in := synth(t, dir, "--requests", "12", "--arrival", "poisson", "--rate", "3", "--prompt", "uniform:40:120",
		"--output", "fixed:6", "--prefix-groups", "2", "--prefix-tokens", "64", "--block-size", "16", "--seed", "5")
	recorded := filepath.Join(dir, "recorded.parquet")
	if _, err := run(t, "record", "--trace", in, "--out", recorded, "--base-url", "http://"+ln.Addr().String()+"/v1",
		"--model", model, "--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20"); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_, sent, err := traces.ReadAll(recorded)
	if err != nil {
		t.Fatal(err)
	}
	meta, captured, err := traces.ReadAll(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if len(captured) != len(sent) || meta.BlockSize != 16 {
		t.Fatalf("proxy captured %d requests (block size %d), the client sent %d", len(captured), meta.BlockSize, len(sent))
	}
	// The proxy sees requests in arrival order; so does the recorded trace.
	byPrompt := map[int32]int{}
	for _, r := range sent {
		byPrompt[r.UsagePrompt]++
	}
	hashes := map[uint64]int{}
	for _, r := range captured {
		if r.UsagePrompt == traces.Missing || r.UsageOutput != 6 || r.PromptTokens != r.UsagePrompt || r.HTTPStatus != 200 {
			t.Errorf("captured row %s: prompt %d usage %d/%d status %d", r.ID, r.PromptTokens, r.UsagePrompt, r.UsageOutput, r.HTTPStatus)
		}
		byPrompt[r.UsagePrompt]--
		if len(r.PrefixHashes) > 0 {
			hashes[r.PrefixHashes[0]]++
		}
	}
	for n, c := range byPrompt {
		if c != 0 {
			t.Errorf("prompt length %d: client and proxy disagree by %d requests", n, c)
		}
	}
	// Two prefix groups: the first block of every prompt is one of two texts.
	if len(hashes) > 2 {
		t.Errorf("%d distinct first-block hashes for 2 shared-prefix groups", len(hashes))
	}
}

// freshEngine starts a CPU engine of its own on port (scripts/engine.sh
// serve, the models of the running one) and returns its API root; it is
// stopped when the test ends. Calibrations and the live runs they are
// compared with need a freshly started engine: Ollama keeps its KV cache
// unfragmented only until slots have come and gone (it never defragments,
// and each slot's shared template prefix stays where it was first put), and
// every step attends up to the highest cell in use, so a long-lived engine
// runs slower than a fresh one by an amount that depends on its history.
func freshEngine(t *testing.T, port string) string {
	t.Helper()
	return freshEngineOn(t, port, "")
}

// freshEngineOn is freshEngine pinned to the CPUs of a taskset list ("" for
// all of them).
func freshEngineOn(t *testing.T, port, cpus string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	spec := verify.EngineSpec{
		Start: "SERVESIM_ENGINE_PORT={{.Port}} SERVESIM_ENGINE_CPUS=" + cpus + " OLLAMA_NUM_PARALLEL=4 exec " +
			shellQuote(filepath.Join(root, "scripts/engine.sh")) + " serve",
		HealthURL: "http://127.0.0.1:" + port + "/api/version", HealthTimeout: 30 * time.Second,
	}
	eng, err := verify.StartEngine(t.Context(), spec, verify.Knobs{Port: port}, filepath.Join(t.TempDir(), "engine.log"))
	if err != nil {
		liveUnavailable(t, "fresh engine on port %s: %v", port, err)
	}
	t.Cleanup(func() { eng.Stop(context.Background()) })
	return "http://127.0.0.1:" + port + "/v1"
}

// shellQuote quotes s as one word for sh (the repository's path may hold
// spaces).
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
