package telemetry

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sampler is what the tests below need of either recorder.
type sampler interface {
	Publish() error
	Discard()
	Keep() (string, error)
}

// samplers start each recorder writing to path and return it once it has
// written a few rounds.
var samplers = map[string]func(t *testing.T, path string) sampler{
	"gpu": func(t *testing.T, path string) sampler {
		src := &fakeSource{}
		r, err := StartGPU(context.Background(), src, GPUConfig{Interval: time.Millisecond, Path: path})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Discard() })
		for src.n() < 3 {
			time.Sleep(time.Millisecond)
		}
		return r
	},
	"engine": func(t *testing.T, path string) sampler {
		page, err := os.ReadFile("testdata/sglang.prom")
		if err != nil {
			t.Fatal(err)
		}
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Write(page)
		}))
		t.Cleanup(srv.Close)
		s, err := StartScrapeWith(context.Background(), ScrapeConfig{URL: srv.URL, Interval: time.Millisecond, Path: path,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Discard() })
		for hits.Load() < 4 { // the first three scrapes are recorded
			time.Sleep(time.Millisecond)
		}
		return s
	},
}

// withEarlier returns the path of a sidecar that an earlier run left.
func withEarlier(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.csv")
	if err := os.WriteFile(path, []byte("earlier run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// others lists the files in path's directory but path.
func others(t *testing.T, path string) []string {
	t.Helper()
	es, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		if e.Name() != filepath.Base(path) {
			names = append(names, filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
	return names
}

// While sampling, the rows go to one temporary file beside the path, as
// they come (a crash leaves them there), and the earlier run's file stays
// at the path; Publish puts the new file there and leaves nothing else.
func TestSidecarReachesItsPathOnlyWhenPublished(t *testing.T) {
	for kind, start := range samplers {
		t.Run(kind, func(t *testing.T) {
			path := withEarlier(t)
			s := start(t, path)
			if got := fileText(t, path); got != "earlier run\n" {
				t.Errorf("while sampling, the path holds %q: want the earlier run's file", got)
			}
			tmp := others(t, path)
			if len(tmp) != 1 {
				t.Fatalf("while sampling, beside the path: %v; want one temporary file", tmp)
			}
			// Lines, not CSV: a round may be coming in as it is read.
			if n := strings.Count(fileText(t, tmp[0]), "\n"); n < 3 {
				t.Errorf("the temporary file holds %d lines while sampling: want the header and the rows so far", n)
			}
			if err := s.Publish(); err != nil {
				t.Fatal(err)
			}
			if rows := readCSV(t, path); len(rows) < 4 || slices.Equal(rows[0], []string{"earlier run"}) {
				t.Errorf("published file: %v; want this run's header and rows", rows)
			}
			if left := others(t, path); len(left) != 0 {
				t.Errorf("left beside the published file: %v", left)
			}
		})
	}
}

// A run whose trace is not written discards its samples: the earlier
// run's file stays whole and nothing is left beside it.
func TestDiscardedSidecarLeavesTheEarlierOne(t *testing.T) {
	for kind, start := range samplers {
		t.Run(kind, func(t *testing.T) {
			path := withEarlier(t)
			start(t, path).Discard()
			if got := fileText(t, path); got != "earlier run\n" {
				t.Errorf("after Discard the path holds %q: want the earlier run's file", got)
			}
			if left := others(t, path); len(left) != 0 {
				t.Errorf("left beside the path: %v", left)
			}
		})
	}
}

// Keep leaves the samples under the temporary name it returns, and the
// earlier run's file at the path; nothing publishes them after that.
func TestKeptSidecarStaysUnderItsTemporaryName(t *testing.T) {
	for kind, start := range samplers {
		t.Run(kind, func(t *testing.T) {
			path := withEarlier(t)
			s := start(t, path)
			kept, err := s.Keep()
			if err != nil {
				t.Fatalf("Keep: %v", err)
			}
			if left := others(t, path); !slices.Equal(left, []string{kept}) {
				t.Fatalf("Keep returned %q; beside the path: %v", kept, left)
			}
			if rows := readCSV(t, kept); len(rows) < 4 {
				t.Errorf("the kept file holds %d rows: want the header and every round", len(rows))
			}
			if err := s.Publish(); err != nil {
				t.Errorf("Publish after Keep: %v", err)
			}
			if got := fileText(t, path); got != "earlier run\n" {
				t.Errorf("the path holds %q: want the earlier run's file", got)
			}
		})
	}
}

// A kept file whose close fails may hold fewer rows than were written:
// Keep says so, naming the file it leaves, as a write error would.
func TestKeptSidecarReportsItsCloseError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpu.csv")
	s, err := createSidecar(path, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.discard()
	s.f.File.Close() // a close that fails, as one after a write-back error does
	kept, err := s.keep()
	if kept == "" || err == nil || !strings.Contains(err.Error(), kept) {
		t.Errorf("keep = %q, %v; want the kept file and its close error naming it", kept, err)
	}
}
