//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// An output is made as os.WriteFile makes one, under the umask: a user
// who keeps files private (umask 077) gets outputs no one else reads.
func TestModeHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "out.json")
	if err := WriteFile(path, []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v under umask 077, want 0600", fi.Mode().Perm())
	}
}
