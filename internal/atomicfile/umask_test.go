//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// An output is made as os.WriteFile makes one, under the umask: 0644
// under the usual umask (not CreateTemp's 0600), and a user who keeps files
// private (umask 077) gets outputs no one else reads, raw bodies of
// prompts and answers included.
func TestModeHonoursUmask(t *testing.T) {
	for name, write := range map[string]func(string, []byte) error{"WriteFile": WriteFile, "WriteFileUnsynced": WriteFileUnsynced} {
		for _, c := range []struct {
			umask int
			want  os.FileMode
		}{{0o022, 0o644}, {0o077, 0o600}} {
			old := syscall.Umask(c.umask)
			path := filepath.Join(t.TempDir(), "out.json")
			err := write(path, []byte("x"))
			syscall.Umask(old)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != c.want {
				t.Errorf("%s: mode %v under umask %03o, want %v", name, fi.Mode().Perm(), c.umask, c.want)
			}
		}
	}
}
