package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// stubOutputTokens are the output tokens of each measured request of the
// lifecycle tests: the stub engine tells them from the warm-up's by it.
const stubOutputTokens = 13

// TestStubEngine is the engine the lifecycle tests start with their
// engine command, in a child process: a stub server on
// SERVESIM_STUB_ENGINE_ADDR that answers GET /metrics (its health URL)
// and, with SERVESIM_STUB_ENGINE_DIE=n, exits 1 when the n-th measured
// request arrives, as an engine that crashes under load.
func TestStubEngine(t *testing.T) {
	addr := os.Getenv("SERVESIM_STUB_ENGINE_ADDR")
	if addr == "" {
		t.Skip("engine helper for the lifecycle tests")
	}
	die, _ := strconv.Atoi(os.Getenv("SERVESIM_STUB_ENGINE_DIE"))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stub engine:", err)
		os.Exit(2)
	}
	srv := replaytest.New(replaytest.Options{TTFT: 5 * time.Millisecond, ITL: 20 * time.Millisecond, Listener: l, Metrics: "# up\n"})
	inner := srv.Config.Handler
	var measured atomic.Int64
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			MaxTokens int `json:"max_tokens"`
		}
		json.Unmarshal(body, &req)
		if die > 0 && req.MaxTokens == stubOutputTokens && measured.Add(1) >= int64(die) {
			fmt.Fprintln(os.Stderr, "stub engine: crashed under load")
			os.Exit(1)
		}
		inner.ServeHTTP(w, r)
	})
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	select {
	case <-stop:
	case <-time.After(2 * time.Minute):
	}
	srv.Close()
}

// stubEngineSpec starts TestStubEngine on a free loopback port for each
// candidate, in the background of a shell that writes its pid to
// dir/pidN (N the rank) and waits; the candidate of rank dieRank dies at
// its 6th measured request.
func stubEngineSpec(t *testing.T, dir string, dieRank int) (*EngineSpec, replay.Config) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv("STUB_BIN", os.Args[0])
	t.Setenv("D", dir)
	start := fmt.Sprintf(`{{if eq .Rank %d}}export SERVESIM_STUB_ENGINE_DIE=6; {{end}}`, dieRank) +
		`SERVESIM_STUB_ENGINE_ADDR={{.Host}}:{{.Port}} "$STUB_BIN" -test.run='^TestStubEngine$' & echo $! > "$D/pid{{.Rank}}"; wait`
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = "http://"+addr+"/v1", "stub", "SERVESIM_NO_KEY"
	cfg.Timeout = 10 * time.Second
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20}
	spec := &EngineSpec{Start: start, HealthURL: "http://" + addr + "/metrics", HealthTimeout: 20 * time.Second, StopTimeout: 3 * time.Second}
	return spec, cfg
}

// lifecycleTrace writes n requests of stubOutputTokens, one every gap.
func lifecycleTrace(t *testing.T, dir string, n int, gap time.Duration) string {
	t.Helper()
	var reqs []*traces.Request
	for i := range n {
		var r traces.Request
		r.Reset()
		r.ID = fmt.Sprintf("r%03d", i)
		r.Arrival = int64(i) * int64(gap)
		r.PromptTokens, r.OutputTokens = 60, stubOutputTokens
		reqs = append(reqs, &r)
	}
	path := filepath.Join(dir, "trace.parquet")
	if err := traces.WriteAll(path, traces.Meta{Source: "test"}, reqs); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkEngineGone fails unless the engine process whose pid the start
// command wrote to pidFile has ended.
func checkEngineGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Errorf("engine pid: %v", err)
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", pidFile, err)
	}
	if processRunning(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("engine process %d (%s) outlived its candidate", pid, pidFile)
	}
}

// processRunning says whether pid is a process that has not ended (a
// zombie left to a parent that does not reap has ended).
func processRunning(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// An engine that dies mid-run: its candidate is engine_died, the requests
// it no longer served are failures that no latency counts, its process is
// gone, and the next candidate's engine gets the same port and runs.
func TestEngineDiesMidRun(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	spec, cfg := stubEngineSpec(t, dir, 1)
	res, err := Run(context.Background(), Options{
		Candidates: candidates(4, 4), Trace: lifecycleTrace(t, dir, 20, 100*time.Millisecond),
		Replay: cfg, Engine: spec, Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
	})
	if err != nil {
		t.Fatal(err)
	}
	died, next := res.Candidates[0], res.Candidates[1]
	if died.Status != StatusDied || !strings.Contains(died.Detail, "crashed under load") {
		t.Errorf("dying engine: %s (%s), want engine_died with the log's tail", died.Status, died.Detail)
	}
	m := died.Measured
	if m.Requests != 20 || m.Completed >= 20 {
		t.Errorf("dying engine measured %d sent, %d completed: want 20 sent, the ones after its death failed", m.Requests, m.Completed)
	}
	failed := 0
	for _, n := range died.FailedByKind {
		failed += n
	}
	if int64(failed) != m.Requests-m.Completed {
		t.Errorf("failed by kind %v: want %d failures", died.FailedByKind, m.Requests-m.Completed)
	}
	// The requests the dead engine left are failures in the trace too:
	// no latency stands for them.
	_, rows, err := traces.ReadAll(died.Trace)
	if err != nil {
		t.Fatalf("the dying engine's trace: %v", err)
	}
	for _, r := range rows {
		if _, ok := r.TTFT(); !r.Succeeded() && (r.Error == "" || ok) {
			t.Errorf("request %s failed without an error, or with a TTFT", r.ID)
		}
	}
	if next.Status != StatusOK || next.Measured.Completed != 20 {
		t.Errorf("next candidate: %s (%s), %d completed: want ok, 20", next.Status, next.Detail, next.Measured.Completed)
	}
	checkEngineGone(t, filepath.Join(dir, "pid1"))
	checkEngineGone(t, filepath.Join(dir, "pid2"))
	if res.Incomplete != 1 {
		t.Errorf("incomplete %d, want 1", res.Incomplete)
	}
	var b strings.Builder
	res.WriteTable(&b)
	if !strings.Contains(b.String(), "ENGINE_DIED") {
		t.Errorf("table does not say which candidate failed:\n%s", b.String())
	}
}

// Interrupted mid-run, verify stops the engine it started: no engine
// process is left behind, and the port is free.
func TestInterruptStopsEngine(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	spec, cfg := stubEngineSpec(t, dir, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	saved := replayRecord
	t.Cleanup(func() { replayRecord = saved })
	replayRecord = func(ctx context.Context, cfg replay.Config, log io.Writer) ([]*replay.Summary, error) {
		time.AfterFunc(300*time.Millisecond, cancel) // Ctrl-C during the measured replay
		return saved(ctx, cfg, log)
	}
	res, err := Run(ctx, Options{
		Candidates: candidates(4, 4), Trace: lifecycleTrace(t, dir, 40, 50*time.Millisecond),
		Replay: cfg, Engine: spec, Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
	})
	if err == nil {
		t.Error("an interrupted verify returned no error")
	}
	for _, c := range res.Candidates {
		if c.Status != StatusCanceled {
			t.Errorf("%s: %s (%s), want canceled", c.Label, c.Status, c.Detail)
		}
	}
	checkEngineGone(t, filepath.Join(dir, "pid1"))
	if _, err := os.Stat(filepath.Join(dir, "pid2")); err == nil {
		t.Error("an engine was started for a candidate after the interrupt")
	}
	l, err := net.Listen("tcp", strings.TrimSuffix(strings.TrimPrefix(cfg.BaseURL, "http://"), "/v1"))
	if err != nil {
		t.Errorf("the engine's port is still taken: %v", err)
	} else {
		l.Close()
	}
}
