package testfs

import (
	"syscall"
	"testing"
)

// WithFileSizeLimit runs f with files limited to n bytes, as on a full
// disk: a write past it fails with EFBIG (Go ignores SIGXFSZ). The limit
// is the process's, so f must be all that writes meanwhile. t is skipped
// where the limit cannot be set.
func WithFileSizeLimit(t testing.TB, n uint64, f func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	small := old
	small.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Skip(err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
	}()
	f()
}
