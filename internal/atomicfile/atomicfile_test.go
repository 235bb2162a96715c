package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
)

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The temporary file is hidden and in the path's directory (a rename
// across directories could cross file systems and not be atomic); what is
// written shows at the path only once committed, replacing the old file.
func TestContentAppearsOnlyOnCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.Dir(f.Name()); got != dir {
		t.Errorf("temporary file in %s, want %s", got, dir)
	}
	if base := filepath.Base(f.Name()); !strings.HasPrefix(base, ".") || base == "."+filepath.Base(path) {
		t.Errorf("temporary file %s: want a hidden name of its own", base)
	}
	if f.Path() != path {
		t.Errorf("Path() = %s, want %s", f.Path(), path)
	}
	if _, err := f.WriteString("new"); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "old" {
		t.Errorf("before Commit the path holds %q, want the old file", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "new" {
		t.Errorf("after Commit the path holds %q, want %q", got, "new")
	}
	if names := testfs.Names(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only the output", names)
	}
	f.Abort() // deferred by callers: a no-op once committed
	if got := readString(t, path); got != "new" {
		t.Errorf("Abort after Commit changed the output to %q", got)
	}
	if err := f.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
}

func TestAbortKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("half"); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if got := readString(t, path); got != "old" {
		t.Errorf("after Abort the path holds %q, want the old file", got)
	}
	if names := testfs.Names(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only the old file", names)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
}

// A rename that fails (here: a directory in the way) removes the
// temporary file, leaves what was at the path, and names the path, not
// the temporary name.
func TestFailedCommitLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "keep"), []byte("k"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []byte("new"))
	if err == nil {
		t.Fatal("committed over a directory")
	}
	if !strings.HasPrefix(err.Error(), path+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("error %q: want it to name %s and not the temporary file", err, path)
	}
	if names := testfs.Names(t, dir); len(names) != 1 || names[0] != "out.json" {
		t.Errorf("directory holds %v, want only out.json", names)
	}
	if got := readString(t, filepath.Join(path, "keep")); got != "k" {
		t.Errorf("the directory in the way lost its file: %q", got)
	}
}

// Closing without Commit or Abort keeps the rows under the temporary
// name, for a caller that leaves them to be recovered.
func TestCloseKeepsTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("rows"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, f.Name()); got != "rows" {
		t.Errorf("temporary file holds %q, want %q", got, "rows")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("path exists after Close alone (%v)", err)
	}
}

func TestCreateNamesMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	path := filepath.Join(missing, "out.json")
	_, err := Create(path)
	if err == nil || err.Error() != path+": directory "+missing+" does not exist" {
		t.Errorf("err %v: want it to name %s and its missing directory", err, path)
	}
}

// A "directory" that is a file exists: saying it does not would send
// the user looking for the wrong mistake.
func TestCheckDirNamesAFileInTheDirectorysPlace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, "out.json")
	if err := CheckDir(path); err == nil || err.Error() != path+": "+file+" is a file, not a directory" {
		t.Errorf("err %v: want it to say that %s is a file", err, file)
	}
}

// A file further up is named too: the directory does not exist, but no
// one could make it until that file is moved.
func TestCheckDirNamesAFileAboveTheDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, "sub", "out.json")
	if err := CheckDir(path); err == nil || err.Error() != path+": "+file+" is a file, not a directory" {
		t.Errorf("err %v: want it to say that %s is a file", err, file)
	}
	missing := filepath.Join(t.TempDir(), "none", "sub")
	path = filepath.Join(missing, "out.json")
	if err := CheckDir(path); err == nil || err.Error() != path+": directory "+missing+" does not exist" {
		t.Errorf("err %v: want it to name %s, the directory that does not exist", err, missing)
	}
}

func TestSyncDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("directories are not synced on Windows")
	}
	if err := SyncDir(t.TempDir()); err != nil {
		t.Error(err)
	}
	missing := filepath.Join(t.TempDir(), "none")
	if err := SyncDir(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("err %v: want it to name %s", err, missing)
	}
}

// A failed write (here: past a file-size limit, as on a full disk) names
// the path the caller asked for, not the temporary file, which the
// caller's Abort removes; so do the file's other errors.
func TestWriteErrorNamesPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	checkNamed := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("%s: error %q: want it to name %s and not the temporary file", what, err, path)
		}
	}
	testfs.WithFileSizeLimit(t, 4, func() {
		_, err := f.Write([]byte("too long"))
		checkNamed("Write", err)
		_, err = f.WriteString("too long")
		checkNamed("WriteString", err)
	})
	f.File.Close()
	checkNamed("Sync", f.Sync())
	checkNamed("Close", f.Close())
}

// FailDirSync fails SyncDir, and so the sync after the rename, leaving
// the file in place, until it is restored.
func TestFailDirSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	restore := FailDirSync(errors.New("input/output error"))
	if err := WriteFile(path, []byte("a")); !errors.Is(err, ErrDirNotSynced) {
		t.Errorf("WriteFile with a failing directory sync: %v; want ErrDirNotSynced", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a" {
		t.Errorf("%s holds %q (%v); want the file in place", path, b, err)
	}
	if err := SyncDir(filepath.Dir(path)); err == nil {
		t.Error("SyncDir succeeded; want FailDirSync's error")
	}
	restore()
	if err := WriteFile(path, []byte("b")); err != nil {
		t.Errorf("WriteFile after restore: %v", err)
	}
}

// The note names each hidden link, its verb agreeing with their number.
func TestTempLinksNote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if note := TempLinksNote(path); note != "" {
		t.Errorf("note without links: %q; want none", note)
	}
	one := filepath.Join(filepath.Dir(path), ".trace.jsonl.tmp1")
	if err := os.Link(path, one); err != nil {
		t.Skipf("hard links: %v", err)
	}
	if note := TempLinksNote(path); !strings.Contains(note, one+" is a hidden hard link to it") {
		t.Errorf("note with one link: %q", note)
	}
	two := filepath.Join(filepath.Dir(path), ".trace.jsonl.tmp2")
	if err := os.Link(path, two); err != nil {
		t.Fatal(err)
	}
	if note := TempLinksNote(path); !strings.Contains(note, one+", "+two+" are hidden hard links to it") || !strings.Contains(note, "delete them too") {
		t.Errorf("note with two links: %q", note)
	}
}

// Only errors that each wrap ErrDirNotSynced count as a write renamed
// into place: another failure joined with one does not.
func TestOnlyNotSynced(t *testing.T) {
	ns := fmt.Errorf("out.parquet: %w: %w", ErrDirNotSynced, errors.New("input/output error"))
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{ns, true},
		{fmt.Errorf("replay: writing out.parquet: %w", ns), true},
		{errors.Join(nil, fmt.Errorf("replay: writing out.parquet: %w", ns)), true},
		{errors.Join(errors.New("3 of 9 requests failed"), ns), false},
		{errors.Join(context.Canceled, ns), false},
		{fmt.Errorf("verify: %w", errors.Join(errors.New("3 of 9 requests failed"), ns)), false},
		{fmt.Errorf("verify: %w", errors.Join(ns, ns)), true},
		{errors.New("disk full"), false},
	} {
		if got := OnlyNotSynced(c.err); got != c.want {
			t.Errorf("OnlyNotSynced(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
