//go:build unix

package replay

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A raw body is made as os.WriteFile makes a file: 0644 under the usual
// umask, and no more open than the umask lets it be (a body holds prompts).
func TestRawBodyModeHonoursUmask(t *testing.T) {
	for _, tc := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o077, 0o600}} {
		old := syscall.Umask(tc.umask)
		path := filepath.Join(t.TempDir(), "body")
		err := writeWhole(path, []byte("data: [DONE]\n\n"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != tc.want {
			t.Errorf("mode %v under umask %03o, want %v", fi.Mode().Perm(), tc.umask, tc.want)
		}
	}
}
