package replay

import (
	"bytes"
	"os"
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
	testfs.WithFileSizeLimit(t, 1000, func() {
		c.saveRaw(0, &traces.Request{ID: "a"}, bytes.Repeat([]byte("data: {}\n\n"), 1000), func(int) string { return "" })
	})
	if names := testfs.Names(t, dir); len(names) != 0 {
		b, _ := os.ReadFile(dir + "/000000_a.sse")
		t.Errorf("a failed write left %v (%d of 10000 bytes)", names, len(b))
	}
}
