package replay

import (
	"bytes"
	"os"
	"syscall"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/traces"
)

// A raw body whose write fails part way (here past the file size limit,
// as on a full disk) must not be left under its name, where it would read
// as the whole body the server sent; nor may its temporary file stay.
func TestSaveRawFailedWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	c := &client{rawDir: dir}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	small := old
	small.Cur = 1000
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Skip(err)
	}
	c.saveRaw(0, &traces.Request{ID: "a"}, bytes.Repeat([]byte("data: {}\n\n"), 1000))
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if names := testfs.Names(t, dir); len(names) != 0 {
		b, _ := os.ReadFile(dir + "/000000_a.sse")
		t.Errorf("a failed write left %v (%d of 10000 bytes)", names, len(b))
	}
}
