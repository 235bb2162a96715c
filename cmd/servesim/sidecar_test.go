package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/replay/telemetry"
)

// metricsAt serves a vLLM /metrics page and keeps, for every scrape, what
// was at path then ("" for no file): what a reader saw while the run went.
// Each scrape answers its own number as the waiting count, so the samples
// published tell which scrapes the run used: a handler that ran late, after
// the publishing, is not one of them.
type metricsAt struct {
	path string
	mu   sync.Mutex
	seen []string // by scrape number
}

func newMetricsAt(t *testing.T, path string) (*metricsAt, string) {
	m := &metricsAt{path: path}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := os.ReadFile(m.path)
		m.mu.Lock()
		n := len(m.seen)
		m.seen = append(m.seen, string(b))
		m.mu.Unlock()
		fmt.Fprintf(w, "vllm:num_requests_running 1\nvllm:num_requests_waiting %d\n", n)
	}))
	t.Cleanup(srv.Close)
	return m, srv.URL
}

// checkSaw reports the scrapes whose samples were published at the path
// and that found anything but want there.
func (m *metricsAt) checkSaw(t *testing.T, want, what string) {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(readText(t, m.path))).ReadAll()
	if err != nil || len(rows) == 0 || rows[0][4] != "waiting" {
		t.Fatalf("%s: %v, rows %q: want the engine samples' CSV", m.path, err, rows)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	used, other := 0, 0
	for _, r := range rows[1:] {
		n, err := strconv.Atoi(r[4])
		if err != nil || n < 0 || n >= len(m.seen) {
			t.Fatalf("%s: a sample of scrape %d, of %d served", m.path, n, len(m.seen))
		}
		used++
		if m.seen[n] != want {
			other++
		}
	}
	if used == 0 || other > 0 {
		t.Errorf("%d of %d scrapes while the run went found another file at %s than %s", other, used, m.path, what)
	}
}

// recordInto records trace to dir/o.csv against a test engine, with the
// extra flags, and returns what it printed.
func recordInto(t *testing.T, dir, trace string, extra ...string) (string, error) {
	t.Helper()
	srv := replaytest.New(replaytest.Options{TTFT: 10 * time.Millisecond})
	defer srv.Close()
	return run(t, append([]string{"record", "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--tokens-per-byte", "1", "--prompt-overhead", "20", "--trace", trace, "--out", filepath.Join(dir, "o.csv"),
		"--telemetry-interval", "2ms"}, extra...)...)
}

// recordScraping records trace to dir/o.csv with --engine-metrics and the
// extra flags, and returns what the scrapes saw at dir/o.engine.csv.
func recordScraping(t *testing.T, dir, trace string, extra ...string) (*metricsAt, error) {
	t.Helper()
	m, url := newMetricsAt(t, filepath.Join(dir, "o.engine.csv"))
	_, err := recordInto(t, dir, trace, append([]string{"--engine-metrics", url}, extra...)...)
	return m, err
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const engineHeader = "t_ns,unix_ns,engine,running,waiting,kv_usage\n"

// The samples reach OUT-stem.engine.csv only with the trace: no file is
// there while the run goes, or the earlier run's stays; after the run it
// holds this run's rows and nothing else is left beside it.
func TestRecordPublishesSamplesWithTheTrace(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	path := filepath.Join(dir, "o.engine.csv")
	want := []string{"in.csv", "o.csv", "o.engine.csv"}

	m, err := recordScraping(t, dir, tr)
	if err != nil {
		t.Fatal(err)
	}
	m.checkSaw(t, "", "none")
	first := readText(t, path)
	if !strings.HasPrefix(first, engineHeader) || strings.Count(first, "\n") < 2 {
		t.Errorf("%s after the run:\n%s\nwant the header and the run's rows", path, first)
	}
	if got := testfs.Names(t, dir); !slices.Equal(got, want) {
		t.Errorf("files after the run: %v, want %v", got, want)
	}

	m, err = recordScraping(t, dir, tr)
	if err != nil {
		t.Fatal(err)
	}
	m.checkSaw(t, first, "the first run's")
	if second := readText(t, path); second == first || !strings.HasPrefix(second, engineHeader) {
		t.Errorf("%s after the second run:\n%s\nwant the second run's rows", path, second)
	}
	if got := testfs.Names(t, dir); !slices.Equal(got, want) {
		t.Errorf("files after the second run: %v, want %v", got, want)
	}
}

// Past the latest time a trace holds: the run fails when it reads this row.
const unschedulable = "5000000000000000000,100,20\n"

// A run that fails before any row is written leaves the earlier run's
// samples whole, and no file of its own.
func TestRecordThatFailsLeavesEarlierSamples(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n"+unschedulable)
	path := writeFile(t, dir, "o.engine.csv", "earlier run\n")
	if _, err := recordScraping(t, dir, tr); err == nil {
		t.Fatal("record of an unschedulable row succeeded")
	}
	if got := readText(t, path); got != "earlier run\n" {
		t.Errorf("%s holds %q after a failed run: want the earlier run's file", path, got)
	}
	if got, want := testfs.Names(t, dir), []string{"in.csv", "o.engine.csv"}; !slices.Equal(got, want) {
		t.Errorf("files after the failed run: %v, want %v", got, want)
	}
}

// A run that fails after writing rows keeps them in OUT.partial.arrows and
// its samples under their temporary name, which the error gives; the
// earlier run's samples stay at the path.
func TestRecordKeepsSamplesBesideKeptRows(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV+unschedulable)
	path := writeFile(t, dir, "o.engine.csv", "earlier run\n")
	_, err := recordScraping(t, dir, tr)
	if err == nil {
		t.Fatal("record of an unschedulable row succeeded")
	}
	partial := replay.PartialPath(filepath.Join(dir, "o.csv"))
	if _, serr := os.Stat(partial); serr != nil {
		t.Fatalf("the run's rows were not kept: %v", serr)
	}
	if got := readText(t, path); got != "earlier run\n" {
		t.Errorf("%s holds %q after a failed run: want the earlier run's file", path, got)
	}
	var kept string
	for _, name := range testfs.Names(t, dir) {
		if strings.HasPrefix(name, ".o.engine.csv") {
			kept = filepath.Join(dir, name)
		}
	}
	if kept == "" || !strings.Contains(err.Error(), kept) || !strings.Contains(err.Error(), partial) {
		t.Fatalf("error %q: want it to name the rows' file and the samples' file (%q)", err, kept)
	}
	if got := readText(t, kept); !strings.HasPrefix(got, engineHeader) || strings.Count(got, "\n") < 2 {
		t.Errorf("kept samples:\n%s\nwant the header and the run's rows", got)
	}
}

// proxyRecording runs record proxy to dir/p.csv with the extra flags
// until it has started, when it calls started, and returns what it
// logged.
func proxyRecording(t *testing.T, dir string, started func(), extra ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app := newApp()
	// A session that captured no finished request writes no trace.
	stderr := &syncBuffer{mark: "Ctrl-C to stop"}
	stderr.hit = sendOneRequestOnStart(t, stderr, started, cancel)
	app.Writer, app.ErrWriter = io.Discard, stderr
	err := app.RunContext(ctx, append([]string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0",
		"--upstream", "http://127.0.0.1:1/v1", "--out", filepath.Join(dir, "p.csv"), "--telemetry-interval", "2ms"}, extra...))
	return stderr.String(), err
}

// sendOneRequestOnStart is the hook for a syncBuffer holding record
// proxy's log, run once its start line is there: it sends the proxy one
// request, failed upstream (nothing listens there) but finished, then
// calls started and cancel to end the session.
func sendOneRequestOnStart(t *testing.T, log *syncBuffer, started func(), cancel context.CancelFunc) func() {
	return func() {
		addr := proxyAddr(log.b.String())
		if addr == "" {
			t.Errorf("no listening address in the start line:\n%s", log.b.String())
			cancel()
			return
		}
		go func() { // the proxy logs to log, whose lock this hook runs under
			if resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`)); err == nil {
				resp.Body.Close()
			}
			started()
			cancel()
		}()
	}
}

// proxyAddr is the address in the proxy's start line ("proxying ADDR
// -> ..."), or "" when log holds none.
func proxyAddr(log string) string {
	_, rest, ok := strings.Cut(log, "proxying ")
	if !ok {
		return ""
	}
	addr, _, _ := strings.Cut(rest, " ")
	return addr
}

// proxyScraping runs proxyRecording with --engine-metrics and returns
// what the scrapes saw at dir/p.engine.csv.
func proxyScraping(t *testing.T, dir string, started func()) (*metricsAt, error) {
	t.Helper()
	m, url := newMetricsAt(t, filepath.Join(dir, "p.engine.csv"))
	_, err := proxyRecording(t, dir, started, "--engine-metrics", url)
	return m, err
}

// A proxy session that writes its trace replaces the earlier session's
// samples, which stay while it runs; one whose trace cannot be written
// (a directory in the way) leaves them, its own kept beside its rows.
func TestProxyPublishesSamplesWithTheTrace(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "p.engine.csv", "earlier run\n")
	m, err := proxyScraping(t, dir, func() {})
	if err != nil {
		t.Fatal(err)
	}
	m.checkSaw(t, "earlier run\n", "the earlier session's")
	if got := readText(t, path); !strings.HasPrefix(got, engineHeader) {
		t.Errorf("%s after the session:\n%s\nwant this session's samples", path, got)
	}
	if got, want := testfs.Names(t, dir), []string{"p.csv", "p.engine.csv"}; !slices.Equal(got, want) {
		t.Errorf("files after the session: %v, want %v", got, want)
	}

	dir = t.TempDir()
	path = writeFile(t, dir, "p.engine.csv", "earlier run\n")
	_, err = proxyScraping(t, dir, func() {
		if err := os.MkdirAll(filepath.Join(dir, "p.csv", "in-the-way"), 0o755); err != nil {
			t.Error(err)
		}
	})
	if err == nil {
		t.Fatal("the session succeeded with a directory at its trace's path")
	}
	if got := readText(t, path); got != "earlier run\n" {
		t.Errorf("%s holds %q after a failed session: want the earlier session's file", path, got)
	}
	partial := replay.PartialPath(filepath.Join(dir, "p.csv"))
	if !strings.Contains(err.Error(), "rows left in "+partial) || !strings.Contains(err.Error(), filepath.Join(dir, ".p.engine.csv")) {
		t.Errorf("error %q: want it to name the rows' file and the samples' file", err)
	}
}

// noMetrics is an engine without /metrics: every scrape gets 404.
func noMetrics(t *testing.T) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// A run that writes its trace without samples it was asked for (the engine
// has no /metrics) removes the earlier run's file of that kind, which does
// not describe the new trace, and says so; a kind it was not asked for is
// left alone, and so is everything when its trace is not written.
func TestRecordRemovesSamplesItCouldNotTake(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	eng := writeFile(t, dir, "o.engine.csv", "earlier run\n")
	gpu := writeFile(t, dir, "o.gpu.csv", "earlier run\n")
	out, err := recordInto(t, dir, tr, "--engine-metrics", noMetrics(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := testfs.Names(t, dir), []string{"in.csv", "o.csv", "o.gpu.csv"}; !slices.Equal(got, want) {
		t.Errorf("files after the run: %v, want %v", got, want)
	}
	if got := readText(t, gpu); got != "earlier run\n" {
		t.Errorf("%s, not asked for, holds %q: want it as it was", gpu, got)
	}
	if n := strings.Count(out, eng); n != 1 || !strings.Contains(out, "removed") {
		t.Errorf("output names %s %d times:\n%s\nwant one line saying it was removed", eng, n, out)
	}

	writeFile(t, dir, "o.engine.csv", "earlier run\n")
	failing := writeFile(t, dir, "bad.csv", "arrival_ns,prompt_tokens,output_tokens\n"+unschedulable)
	if _, err := recordInto(t, dir, failing, "--engine-metrics", noMetrics(t)); err == nil {
		t.Fatal("record of an unschedulable row succeeded")
	}
	if got := readText(t, eng); got != "earlier run\n" {
		t.Errorf("%s holds %q after a failed run: want the earlier run's file, beside the earlier trace", eng, got)
	}
}

// The same for --gpu on a host without an NVIDIA driver.
func TestRecordRemovesGPUSamplesWithoutDriver(t *testing.T) {
	if _, closeNVML, err := telemetry.OpenNVML(); err == nil {
		closeNVML()
		t.Skip("this host has an NVIDIA driver: --gpu takes samples")
	}
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	gpu := writeFile(t, dir, "o.gpu.csv", "earlier run\n")
	out, err := recordInto(t, dir, tr, "--gpu")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := testfs.Names(t, dir), []string{"in.csv", "o.csv"}; !slices.Equal(got, want) {
		t.Errorf("files after the run: %v, want %v", got, want)
	}
	if !strings.Contains(out, gpu) {
		t.Errorf("output does not name the removed %s:\n%s", gpu, out)
	}
}

// A proxy session does the same: its trace written, an earlier session's
// engine samples go when this one's engine has no /metrics.
func TestProxyRemovesSamplesItCouldNotTake(t *testing.T) {
	dir := t.TempDir()
	eng := writeFile(t, dir, "p.engine.csv", "earlier run\n")
	out, err := proxyRecording(t, dir, func() {}, "--engine-metrics", noMetrics(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := testfs.Names(t, dir), []string{"p.csv"}; !slices.Equal(got, want) {
		t.Errorf("files after the session: %v, want %v", got, want)
	}
	if !strings.Contains(out, eng) {
		t.Errorf("the log does not name the removed %s:\n%s", eng, out)
	}
}

// With --repeat, one OUT-stem.engine.csv covers every run: it is published
// once any run's trace is written, the samples of a later run that failed
// included, whether that run kept rows (the error then says where its
// samples are) or failed before it wrote any.
func TestRecordRepeatPublishesSamplesOfWrittenRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		// block puts something in dir that makes run 2 fail and returns
		// the flags that lead run 2 to it.
		block func(t *testing.T, dir string) []string
		kept  bool
	}{
		{"no row written", func(t *testing.T, dir string) []string {
			raw := filepath.Join(dir, "raw")
			if err := os.Mkdir(raw, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, raw, "run2", "") // where run 2's raw bodies would go
			return []string{"--save-raw", raw}
		}, false},
		{"rows kept", func(t *testing.T, dir string) []string {
			// A directory where run 2's trace would go, made once run 1's
			// trace is written: one there before the start is refused.
			ctx := t.Context()
			go func() {
				for ctx.Err() == nil {
					if _, err := os.Stat(filepath.Join(dir, "o.run1.csv")); err == nil {
						if err := os.MkdirAll(filepath.Join(dir, "o.run2.csv", "in-the-way"), 0o755); err != nil {
							t.Error(err)
						}
						return
					}
					time.Sleep(100 * time.Microsecond)
				}
			}()
			return nil
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tr := writeFile(t, dir, "in.csv", smallCSV)
			path := writeFile(t, dir, "o.engine.csv", "earlier run\n")
			_, err := recordScraping(t, dir, tr, append([]string{"--repeat", "2"}, tc.block(t, dir)...)...)
			if err == nil {
				t.Fatal("run 2 succeeded with its output blocked")
			}
			if _, serr := os.Stat(filepath.Join(dir, "o.run1.csv")); serr != nil {
				t.Fatalf("run 1's trace: %v", serr)
			}
			if got := readText(t, path); !strings.HasPrefix(got, engineHeader) || strings.Count(got, "\n") < 2 {
				t.Errorf("%s after run 1 was written:\n%s\nwant this record's header and rows", path, got)
			}
			for _, name := range testfs.Names(t, dir) {
				if strings.HasPrefix(name, ".o.engine.csv") {
					t.Errorf("left beside the published samples: %s", name)
				}
			}
			partial := replay.PartialPath(filepath.Join(dir, "o.run2.csv"))
			if tc.kept && (!strings.Contains(err.Error(), "rows left in "+partial) || !strings.Contains(err.Error(), path)) {
				t.Errorf("error %q: want it to name the rows' file and the samples' file", err)
			}
		})
	}
}
