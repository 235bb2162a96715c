package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory that is not there, or a file given for it, is not an empty
// calibration: the error says what is wrong with the path.
func TestLoadRunsNamesAPathThatIsNoDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "runs.csv")
	os.WriteFile(file, []byte("x\n"), 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "no such file or directory"},
		{file, "is not a directory"},
	} {
		_, err := LoadRuns(c.path)
		if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadRuns(%s) = %v, want it to name the path and %q", c.path, err, c.want)
		}
	}
}
