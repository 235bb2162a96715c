package telemetry

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/servesim/servesim/internal/atomicfile"
)

// SidecarPath names a telemetry file beside a trace: "run.parquet" with
// kind "gpu" gives "run.gpu.csv".
func SidecarPath(tracePath, kind string) string {
	dir, base := filepath.Split(tracePath)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return filepath.Join(dir, base+"."+kind+".csv")
}

// RemoveStale removes an earlier run's sample file at path, for a run
// that takes no samples of that kind to go with its trace: beside it, the
// file would read as that trace's. It reports whether there was one.
func RemoveStale(path string) (removed bool, err error) {
	switch err := os.Remove(path); {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("telemetry: an earlier run's samples, which do not go with this trace: %w", err)
	}
}

// sidecar is a recorder's CSV file. Rows are flushed to a temporary file
// beside its path as they come, so a crash leaves them there as it leaves
// a trace's rows in the trace's temporary file; the path gets the file
// only from publish, once the trace it belongs with is in place, so that
// a run that fails leaves an earlier run's file as it was.
type sidecar struct {
	f   *atomicfile.File // nil once published, discarded or kept
	csv *csv.Writer
}

func createSidecar(path string, header []string) (*sidecar, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	s := &sidecar{f: f, csv: csv.NewWriter(f)}
	if err := s.write(header); err != nil {
		f.Abort()
		return nil, err
	}
	return s, nil
}

// write appends rows and flushes them to the file.
func (s *sidecar) write(rows ...[]string) error {
	for _, r := range rows {
		s.csv.Write(r)
	}
	s.csv.Flush()
	if err := s.csv.Error(); err != nil {
		return fmt.Errorf("telemetry: %w", atomicfile.Named(s.f.Path(), err))
	}
	return nil
}

// sync makes the rows durable when sampling ends; the file stays open
// for publish, discard or keep.
func (s *sidecar) sync() error {
	if s == nil || s.f == nil {
		return nil
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("telemetry: %w", atomicfile.Named(s.f.Path(), err))
	}
	return nil
}

func (s *sidecar) publish() error {
	if s == nil || s.f == nil {
		return nil
	}
	f := s.f
	s.f = nil
	if err := f.Commit(); err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	return nil
}

func (s *sidecar) discard() {
	if s == nil || s.f == nil {
		return
	}
	s.f.Abort()
	s.f = nil
}

// keep closes the file under its temporary name, which it returns. Its
// error names that file: a close may report a write-back failure that
// the sync when sampling ended did not, leaving rows out of it.
func (s *sidecar) keep() (string, error) {
	if s == nil || s.f == nil {
		return "", nil
	}
	f := s.f.File // the temporary file's own errors name where it is left
	s.f = nil
	if err := f.Close(); err != nil {
		return f.Name(), fmt.Errorf("telemetry: %w", err)
	}
	return f.Name(), nil
}
