// Package atomicfile publishes output files whole. A file is written under
// a hidden temporary name in its path's directory, so that the rename into
// place is atomic, and is fsynced before the rename and its directory
// after it: neither a failure nor a crash leaves a partial file at the
// path, and once Commit returns the file survives a crash.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// ErrDirNotSynced marks the error of a Commit that renamed the file into
// place but could not sync its directory: the file is at its path, though
// a crash may yet undo the rename.
var ErrDirNotSynced = errors.New("renamed into place, but its directory was not synced")

// OnlyNotSynced says whether err is ErrDirNotSynced's error alone, or a
// join of such errors: no other failure rides along, so every file it
// names is written.
func OnlyNotSynced(err error) bool {
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		errs := u.Unwrap()
		if slices.Contains(errs, ErrDirNotSynced) {
			return true // Commit's own: the path, ErrDirNotSynced and its cause
		}
		for _, e := range errs {
			if !OnlyNotSynced(e) {
				return false
			}
		}
		return len(errs) > 0
	case interface{ Unwrap() error }:
		// A wrapped join is looked into too: errors.Is would find
		// ErrDirNotSynced beside any failure joined with it.
		return OnlyNotSynced(u.Unwrap())
	}
	return err == ErrDirNotSynced
}

// File is an output being written under its temporary name; Commit
// publishes it at its path, Abort removes it. Closing it without either
// leaves it under the temporary name (a write to recover by hand).
type File struct {
	*os.File
	path string
	done bool
}

// Create starts the file that Commit publishes at path. It is made 0644
// under the umask, as os.WriteFile makes any output (CreateTemp makes
// 0600, and a chmod would ignore the umask). Its error names path, not
// the temporary name.
func Create(path string) (*File, error) {
	f, err := createTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err != nil {
		if derr := CheckDir(path); derr != nil {
			return nil, derr
		}
		return nil, named(path, err)
	}
	return &File{File: f, path: path}, nil
}

// TempLinks lists the temporary files Create made for path that are hard
// links to the file at path. A writer that links its temporary file to a
// readable name and is killed leaves both: removing path alone frees no
// space.
func TempLinks(path string) []string {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	dir, prefix := filepath.Dir(path), "."+filepath.Base(path)+".tmp"
	entries, _ := os.ReadDir(dir)
	var links []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		name := filepath.Join(dir, e.Name())
		if li, err := os.Stat(name); err == nil && os.SameFile(fi, li) {
			links = append(links, name)
		}
	}
	return links
}

// TempLinksNote is "" or, when path has TempLinks, a clause naming them
// for a message that asks to delete path.
func TempLinksNote(path string) string {
	links := TempLinks(path)
	if len(links) == 0 {
		return ""
	}
	if len(links) == 1 {
		return fmt.Sprintf(" (%s is a hidden hard link to it, left by the same writer: delete it too to free the space)", links[0])
	}
	return fmt.Sprintf(" (%s are hidden hard links to it, left by the same writer: delete them too to free the space)", strings.Join(links, ", "))
}

// createTemp is os.CreateTemp(dir, prefix+"*") with mode 0644, which the
// umask restricts, as os.WriteFile makes a file.
func createTemp(dir, prefix string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}

// Path is where Commit publishes the file.
func (f *File) Path() string { return f.path }

// Write, WriteString, Sync and Close are the temporary file's, their
// errors naming the path: the temporary name means nothing to a user, and
// is gone once the caller aborts.
func (f *File) Write(b []byte) (int, error) {
	n, err := f.File.Write(b)
	return n, f.pathError(err)
}

func (f *File) WriteString(s string) (int, error) {
	n, err := f.File.WriteString(s)
	return n, f.pathError(err)
}

func (f *File) Sync() error  { return f.pathError(f.File.Sync()) }
func (f *File) Close() error { return f.pathError(f.File.Close()) }

// pathError puts the path in place of the temporary name in the error of
// an operation on the file.
func (f *File) pathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return &fs.PathError{Op: pe.Op, Path: f.path, Err: pe.Err}
	}
	return err
}

// Commit syncs and closes the file, renames it over its path and syncs the
// directory, so that the rename too survives a crash. On failure the
// temporary file is removed and a file already at the path is left as it
// was, unless the error is ErrDirNotSynced. Its error names the path.
func (f *File) Commit() error { return f.publish(true) }

// publish closes the file and renames it over its path, with Commit's
// syncs when synced.
func (f *File) publish(synced bool) error {
	if f.done {
		return fmt.Errorf("%s: already committed or aborted", f.path)
	}
	f.done = true
	var err error
	if synced {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return named(f.path, err)
	}
	if !synced {
		return nil
	}
	if err := SyncDir(filepath.Dir(f.path)); err != nil {
		return fmt.Errorf("%s: %w: %w", f.path, ErrDirNotSynced, err)
	}
	return nil
}

// Abort closes and removes the temporary file; after Commit it does
// nothing, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// WriteFile publishes data at path, as Create, Write and Commit do.
func WriteFile(path string, data []byte) error { return writeFile(path, data, true) }

// WriteFileUnsynced is WriteFile without its syncs, for a file written per
// request, where a sync would hold the request's slot: a killed process
// never leaves part of the file under its name (the page cache keeps what
// was written), though a crash of the machine may lose it.
func WriteFileUnsynced(path string, data []byte) error { return writeFile(path, data, false) }

func writeFile(path string, data []byte, synced bool) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return named(path, err)
	}
	return f.publish(synced)
}

// SyncDir makes the entries of dir durable: the files renamed into it or
// created in it. Windows cannot sync a directory, and need not (NTFS
// journals its metadata).
func SyncDir(dir string) error {
	if err := dirSyncErr.Load(); err != nil {
		return *err
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// CheckDir reports an output path whose directory does not exist, so that
// a command can refuse it before any work (nothing creates it). A file in
// the place of that directory, or of one above it, is named: it, not a
// missing directory, is what stops the write.
func CheckDir(path string) error {
	parent := filepath.Dir(path)
	for dir := parent; ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("%s: %s is a file, not a directory", path, dir)
		case err == nil && dir == parent:
			return nil
		case err == nil || dir == filepath.Dir(dir):
			return fmt.Errorf("%s: directory %s does not exist", path, parent)
		}
	}
}

// CheckFile is CheckDir, and also reports a path that is a directory:
// the rename that publishes the file cannot replace one, which would
// otherwise show only once the work is done.
func CheckFile(path string) error {
	if err := CheckDir(path); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory: want a file", path)
	}
	return nil
}

// named returns err as "path: what went wrong", leaving out the temporary
// name that the error of a file operation on it holds.
func named(path string, err error) error {
	switch e := err.(type) {
	case *fs.PathError:
		err = e.Err
	case *os.LinkError:
		err = e.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Named returns err naming path once: as it is when it is already an
// operation's error on path (a File's write errors are), else as
// "path: err".
func Named(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}
