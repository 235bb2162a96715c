package verify

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// A candidate's GPU samples go where its replay's trace went: to
// rankNN.gpu.csv with a written trace, under their temporary name beside
// rows kept in a partial file, else nowhere; the measure names the file,
// and an earlier run's file stays unless the trace was written.
func TestGPUSamplesFollowTheTrace(t *testing.T) {
	for _, tc := range []struct {
		name     string
		written  bool
		rowsLeft string
	}{
		{"written", true, ""},
		{"rows kept", false, "rank01.parquet.partial.arrows"},
		{"nothing kept", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rank01.gpu.csv")
			if err := os.WriteFile(path, []byte("earlier run\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rec, err := telemetry.StartGPU(context.Background(), &constGPU{}, telemetry.GPUConfig{Interval: time.Hour, Path: path})
			if err != nil {
				t.Fatal(err)
			}
			g := &gpuSampler{rec: rec, path: path, log: io.Discard}
			m, _ := g.stop([]*replay.Summary{{OutputTokens: 10}}, tc.written, tc.rowsLeft)
			earlier, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if replaced := string(earlier) != "earlier run\n"; replaced != tc.written {
				t.Errorf("the earlier file replaced: %v, want %v", replaced, tc.written)
			}
			kept, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".rank01.gpu.csv.tmp*"))
			wantKept := 0
			if tc.rowsLeft != "" {
				wantKept = 1
			}
			if len(kept) != wantKept {
				t.Fatalf("temporary files %v: want %d", kept, wantKept)
			}
			wantCSV := ""
			if tc.written {
				wantCSV = path
			} else if wantKept == 1 {
				wantCSV = kept[0]
			}
			if m.CSV != wantCSV {
				t.Errorf("measure names %q, want %q", m.CSV, wantCSV)
			}
		})
	}
}

// Samples asked for on a host without a driver: a written trace takes an
// earlier run's rankNN.gpu.csv away with it (it would pass for this run's),
// and a run that wrote none leaves the file as it was.
func TestGPUSamplesNotTakenRemoveAnEarlierFile(t *testing.T) {
	saved := startNVML
	startNVML = func(context.Context, time.Duration, string, telemetry.DeviceSelection) (*telemetry.GPURecorder, error) {
		return nil, telemetry.ErrNoDriver
	}
	defer func() { startNVML = saved }()
	for _, written := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "rank01.gpu.csv")
		if err := os.WriteFile(path, []byte("earlier run\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		g := startGPU(context.Background(), &Options{GPUInterval: time.Second}, path, &log)
		if m, _ := g.stop([]*replay.Summary{{OutputTokens: 10}}, written, ""); m != nil {
			t.Errorf("written %v: a measure %+v from no samples", written, m)
		}
		_, err := os.Stat(path)
		if gone := errors.Is(err, fs.ErrNotExist); gone != written {
			t.Errorf("written %v: the earlier file removed: %v (%v)\n%s", written, gone, err, log.String())
		}
		if written && !strings.Contains(log.String(), "removed an earlier run's GPU samples") {
			t.Errorf("the log does not say so:\n%s", log.String())
		}
	}
}

// GPU samples renamed into place whose directory was not synced are
// written beside the trace: the measure names them.
func TestGPUSamplesDirNotSyncedAreNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rank01.gpu.csv")
	rec, err := telemetry.StartGPU(context.Background(), &constGPU{}, telemetry.GPUConfig{Interval: time.Hour, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(atomicfile.FailDirSync(errors.New("input/output error")))
	var log strings.Builder
	g := &gpuSampler{rec: rec, path: path, log: &log}
	m, _ := g.stop([]*replay.Summary{{OutputTokens: 10}}, true, "")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s not written: %v", path, err)
	}
	if m == nil || m.CSV != path {
		t.Errorf("measure %+v; want it to name %s", m, path)
	}
	if !strings.Contains(log.String(), "directory was not synced") {
		t.Errorf("log does not report the failed sync: %q", log.String())
	}
}
