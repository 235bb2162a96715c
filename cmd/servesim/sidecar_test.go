package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
)

// metricsAt serves a vLLM /metrics page and keeps, for every scrape, what
// was at path then ("" for no file): what a reader saw while the run went.
type metricsAt struct {
	path string
	mu   sync.Mutex
	seen []string
}

func newMetricsAt(t *testing.T, path string) (*metricsAt, string) {
	m := &metricsAt{path: path}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := os.ReadFile(m.path)
		m.mu.Lock()
		m.seen = append(m.seen, string(b))
		m.mu.Unlock()
		io.WriteString(w, "vllm:num_requests_running 1\nvllm:num_requests_waiting 0\n")
	}))
	t.Cleanup(srv.Close)
	return m, srv.URL
}

// checkSaw reports the scrapes that found anything but want at the path.
func (m *metricsAt) checkSaw(t *testing.T, want, what string) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	other := 0
	for _, s := range m.seen {
		if s != want {
			other++
		}
	}
	if len(m.seen) == 0 || other > 0 {
		t.Errorf("%d of %d scrapes while the run went found another file at %s than %s", other, len(m.seen), m.path, what)
	}
}

// recordScraping records trace to dir/o.csv with --engine-metrics, and
// returns what the scrapes saw at dir/o.engine.csv.
func recordScraping(t *testing.T, dir, trace string) (*metricsAt, error) {
	t.Helper()
	srv := replaytest.New(replaytest.Options{TTFT: 10 * time.Millisecond})
	defer srv.Close()
	m, url := newMetricsAt(t, filepath.Join(dir, "o.engine.csv"))
	_, err := run(t, "record", "--base-url", srv.BaseURL(), "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--tokens-per-byte", "1", "--prompt-overhead", "20", "--trace", trace, "--out", filepath.Join(dir, "o.csv"),
		"--engine-metrics", url, "--telemetry-interval", "2ms")
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

// proxyScraping runs record proxy to dir/p.csv with --engine-metrics
// until it has started, when it calls started, and returns what the
// scrapes saw at dir/p.engine.csv.
func proxyScraping(t *testing.T, dir string, started func()) (*metricsAt, error) {
	t.Helper()
	m, url := newMetricsAt(t, filepath.Join(dir, "p.engine.csv"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	app := newApp()
	stderr := &syncBuffer{mark: "Ctrl-C to stop", hit: func() { started(); cancel() }}
	app.Writer, app.ErrWriter = io.Discard, stderr
	err := app.RunContext(ctx, []string{"servesim", "record", "proxy", "--listen", "127.0.0.1:0",
		"--upstream", "http://127.0.0.1:1/v1", "--out", filepath.Join(dir, "p.csv"),
		"--engine-metrics", url, "--telemetry-interval", "2ms"})
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
