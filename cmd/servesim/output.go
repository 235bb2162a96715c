package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/traces"
)

// table writes aligned columns.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) { fmt.Fprintln(t.tw, strings.Join(cells, "\t")) }
func (t *table) flush()              { t.tw.Flush() }

// finishAtomic publishes f when err is nil, else removes it; it returns
// err or the error of publishing.
func finishAtomic(f *atomicfile.File, err error) error {
	if err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

func writeJSONAtomic(path string, v any) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	err = enc.Encode(v)
	if err != nil {
		err = atomicfile.Named(path, err)
	}
	return finishAtomic(f, err)
}

// outputSet publishes the files of one run together: each is written
// under a temporary name beside its path and renamed into place only when
// every one is finished, so a run of several plans that fails (or is
// interrupted) part way leaves no new file, and an earlier run's files
// are not mixed with this one's.
type outputSet struct{ staged []stagedOutput }

type stagedOutput struct{ tmp, path string }

// stage reserves the temporary name under which path is written: hidden,
// in path's directory (the rename stays atomic), ending in path's
// extension (writers choose the format by it).
func (s *outputSet) stage(path string) (string, error) {
	ext := filepath.Ext(path)
	f, err := os.CreateTemp(filepath.Dir(path), "."+strings.TrimSuffix(filepath.Base(path), ext)+".staged*"+ext)
	if err != nil {
		if derr := atomicfile.CheckDir(path); derr != nil {
			return "", derr
		}
		return "", fmt.Errorf("%s: %w", path, err)
	}
	f.Close()
	s.staged = append(s.staged, stagedOutput{f.Name(), path})
	return f.Name(), nil
}

// commit renames every staged file into place, then syncs their
// directories so that the renames survive a crash. The writers of the
// staged files synced their contents. An error that is
// atomicfile.ErrDirNotSynced leaves every file in place: they are written.
func (s *outputSet) commit() error {
	dirs := map[string][]string{}
	for i, o := range s.staged {
		if err := os.Rename(o.tmp, o.path); err != nil {
			s.staged = s.staged[i:]
			s.discard()
			return err
		}
		dir := filepath.Dir(o.path)
		dirs[dir] = append(dirs[dir], o.path)
	}
	s.staged = nil
	var errs []error
	for dir, paths := range dirs {
		if err := atomicfile.SyncDir(dir); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w: %w", strings.Join(paths, ", "), atomicfile.ErrDirNotSynced, err))
		}
	}
	return errors.Join(errs...)
}

// stagedWritten is the error of writing a staged file less
// atomicfile.ErrDirNotSynced: the file is whole under its staged name,
// and commit syncs its directory once it is renamed into place.
func stagedWritten(err error) error {
	if atomicfile.OnlyNotSynced(err) {
		return nil
	}
	return err
}

// discard removes the staged files not yet committed.
func (s *outputSet) discard() {
	for _, o := range s.staged {
		os.Remove(o.tmp)
	}
	s.staged = nil
}

// namedPath is a path and the flag or argument that gave it.
type namedPath struct{ name, path string }

// checkOutputs refuses an output that would overwrite an input, or
// another output: the one renamed into place last would replace it. Empty
// paths are skipped. Both are usage errors, found before any work.
func checkOutputs(cmd string, outputs, inputs []namedPath) error {
	for i, out := range outputs {
		for _, o := range outputs[:i] {
			if out.path != "" && o.path != "" && traces.SamePath(out.path, o.path) {
				return usageErrorf("%s: %s: %s and %s: %s are the same file: write them apart", cmd, o.name, o.path, out.name, out.path)
			}
		}
		for _, in := range inputs {
			if out.path != "" && in.path != "" && traces.SamePath(out.path, in.path) {
				return usageErrorf("%s: %s: %s would overwrite the input %s: %s: write it elsewhere", cmd, out.name, out.path, in.name, in.path)
			}
		}
	}
	return nil
}

// checkOutputFiles refuses an output file that is a directory: the
// rename that publishes it would fail only once the work is done, after
// the files published before it. A usage error, found before any work.
func checkOutputFiles(cmd string, outputs []namedPath) error {
	for _, out := range outputs {
		if isDir(out.path) {
			return usageErrorf("%s: %s: %s is a directory: want a file", cmd, out.name, out.path)
		}
	}
	return nil
}

// inputKind is what an input path must be.
type inputKind int

const (
	wantFile      inputKind = iota
	wantDir                 // a directory of inputs, such as calibrate's --from-traces
	wantFileOrDir           // either: a results file or the directory that holds them
)

// checkInputs refuses an input path that does not exist, or that is not
// of the kind wanted: a usage error found before any work, naming the
// flag or argument as record's --trace does ("record: --trace: PATH: …",
// the form of every input's error). An input that exists but cannot be
// read or parsed fails as the work does (exit status 1). Empty paths are
// skipped.
func checkInputs(cmd string, want inputKind, inputs ...namedPath) error {
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		fi, err := os.Stat(in.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return usageErrorf("%s: %s: %s: no such file or directory", cmd, in.name, in.path)
		case err != nil:
			continue // unreadable: the work that reads it says why
		case fi.IsDir() && want == wantFile:
			return usageErrorf("%s: %s: %s is a directory: want a file", cmd, in.name, in.path)
		case !fi.IsDir() && want == wantDir:
			return usageErrorf("%s: %s: %s is not a directory: want a directory", cmd, in.name, in.path)
		}
	}
	return nil
}

// flagsFirst refuses an argument that looks like a flag: urfave/cli stops
// reading flags at the first positional argument, so a flag after it
// would be taken as a file name. It is a usage error.
func flagsFirst(cmd string, args []string) error {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			return usageErrorf("%s: flags go before the arguments: %s", cmd, a)
		}
	}
	return nil
}

// makeOutDir creates the --out directory out, up front so that a path
// that cannot be one fails before the work. The function it returns
// removes the directory again when this run created it and left it
// empty (it failed or was interrupted): no empty --out is left looking
// like a finished run's.
func makeOutDir(cmd, out string) (removeIfEmpty func(), err error) {
	if err := checkOutDir(cmd, out); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(out)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("%s: --out: %s: want a directory: %w", cmd, out, err)
	}
	if !errors.Is(statErr, fs.ErrNotExist) {
		return func() {}, nil
	}
	return func() { os.Remove(out) }, nil // fails, as it should, when not empty
}

// checkTraceExtension refuses an input trace that holds servesim's own
// rows under an extension that names no format (a Parquet file called
// trace.xyz): reading it would fail only once the work had begun. Other
// formats are sniffed from their bytes, whatever the name; a file that
// cannot be sniffed fails as the work does.
func checkTraceExtension(cmd string, in namedPath) error {
	if in.path == "" {
		return nil
	}
	if f, err := traces.DetectFormat(in.path, traces.FormatAuto); err != nil || f != traces.FormatServesim {
		return nil
	}
	if _, err := traces.FormatOf(in.path); err != nil {
		return usageErrorf("%s: %s: %v", cmd, in.name, err)
	}
	return nil
}

// checkResultsTrace is checkTraceExtension for report's and compare's
// inputs, where a folder or a .json file is a simulate summary, not a
// trace; a folder without one is a usage error.
func checkResultsTrace(cmd string, in namedPath) error {
	if isDir(in.path) {
		if err := report.CheckResultsDir(in.path); err != nil {
			return usageErrorf("%s: %s: %v", cmd, in.name, err)
		}
		return nil
	}
	if strings.EqualFold(filepath.Ext(in.path), ".json") {
		return nil
	}
	return checkTraceExtension(cmd, in)
}

// checkOutDir refuses an --out directory that exists as a file, that
// lies beneath one (it could not be created), or whose parent does not
// exist (the run makes --out, not the directories above it, as an output
// file needs its directory to exist): a usage error, found before the
// work that would write into it.
func checkOutDir(cmd, out string) error {
	// Cleaned: "taken/" is stat'd as "not a directory", not as the file,
	// and "results/" lies in ".", not in "results".
	clean := filepath.Clean(out)
	if fi, err := os.Stat(clean); err == nil && !fi.IsDir() {
		return usageErrorf("%s: --out: %s: want a directory, not a file", cmd, out)
	}
	if err := atomicfile.CheckDir(clean); err != nil {
		return usageErrorf("%s: --out: %v", cmd, err)
	}
	return nil
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
